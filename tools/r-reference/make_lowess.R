# R's lowess (stats, clowess) on inputs that reach each branch of its C code: the delta
# skip and interpolation (default, 0 and wide delta), ties, spans from 2 points to all,
# robustness iterations (including all-zero weights in a window and a zero MAD),
# constant x (h = 0), n = 1, 2, 3, odd and even n.
# Rscript tools/r-reference/make_lowess.R  ->  tests/fixtures/lowess_r.json
library(jsonlite)
source("tools/r-reference/fixture_json.R")

cases <- list()
add <- function(id, x, y, f = 2/3, iter = 3L, delta = NULL) {
  r <- if (is.null(delta)) lowess(x, y, f = f, iter = iter) else lowess(x, y, f = f, iter = iter, delta = delta)
  cases[[length(cases) + 1L]] <<- list(id = id, x = json_num_null(x), y = json_num_null(y), f = json_num_null(f),
                                       iter = json_num_null(iter),
                                       delta = if (is.null(delta)) NULL else json_num_null(delta),
                                       fit = json_num_null(r$y))
}
set.seed(20240601)
x <- runif(300); y <- as.numeric(runif(300) < plogis(3 * x - 1))
add("binary_iter0", x, y, iter = 0L)
add("binary_iter3", x, y)
add("binary_delta0", x, y, iter = 0L, delta = 0)
add("binary_wide_delta", x, y, iter = 1L, delta = 0.15)
add("binary_f0.1", x, y, f = 0.1, iter = 2L)
xr <- round(x, 1)
add("ties_iter0", xr, y, iter = 0L)
add("ties_iter3_f0.3", xr, y, f = 0.3)
x2 <- rnorm(201)^3; y2 <- sin(x2) + rnorm(201, sd = 0.3)
add("skewed_odd", x2, y2, f = 0.4)
y3 <- y2; y3[90:110] <- y3[90:110] + 50
add("outlier_block", x2, y3, f = 0.05, iter = 3L, delta = 0)
xa <- 1:200; ya <- rnorm(200, sd = 0.01); ya[91:110] <- 100 * (-1)^(91:110)
add("alternating_block", xa, ya, f = 0.05, iter = 2L)  # windows whose robustness weights are all 0
add("span_all", x2, y2, f = 1, iter = 2L)
add("span_tiny", x2, y2, f = 0.001, iter = 1L)
add("exact_line", 1:40 / 40, 2 * (1:40 / 40) + 1, iter = 3L)
add("constant_x", rep(0.5, 12), c(rep(0, 6), rep(1, 6)), iter = 2L)
add("mostly_constant", c(rep(0.3, 30), runif(10)), as.numeric(runif(40) < 0.5), iter = 3L)
add("n1", 0.2, 1, iter = 3L)
add("n2", c(0.9, 0.1), c(1, 0), iter = 3L)
add("n3", c(0.2, 0.2, 0.7), c(0, 1, 1), iter = 3L)
p <- round(rbeta(1000, 0.6, 3), 3); yb <- as.numeric(runif(1000) < p)
add("valprob_like_1000", p, yb, iter = 0L)
writeLines(toJSON(list(r_version = R.version.string, cases = cases), auto_unbox = TRUE, json_verbatim = TRUE,
                  null = "null"), "tests/fixtures/lowess_r.json")
