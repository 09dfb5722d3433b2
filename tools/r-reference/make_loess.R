#!/usr/bin/env Rscript
# R references for calstats.ports.stats.loess: stats::loess (R 4.2.2) for one predictor.
#
# Writes tests/fixtures/loess.json (run from the repository root):
#   Rscript tools/r-reference/make_loess.R
# Each case: the data (17 significant digits), the call's settings, and R's fitted values,
# s, one.delta, two.delta, trace.hat, enp, predict(se = TRUE) at the data and on a grid
# (NA outside the data's range), and R's warnings. The tests read only the JSON.
source("tools/r-reference/fixture_json.R")
library(jsonlite)

J <- json_num_str

cases <- list()

fit_case <- function(id, x, y, w = NULL, span = 0.75, degree = 2, family = "gaussian",
                     surface = "interpolate", statistics = "approximate", cell = 0.2,
                     grid = NULL, note = "") {
  if (is.null(grid)) grid <- c(seq(min(x), max(x), length.out = 37), min(x) - 1e-3, max(x) + 1e-3)
  d <- data.frame(x = x, y = y, w = if (is.null(w)) rep(1, length(x)) else w)
  r <- capture_all({
    f <- loess(y ~ x, data = d, weights = w, span = span, degree = degree, family = family,
               control = loess.control(surface = surface, statistics = statistics, cell = cell))
    pd <- predict(f, se = TRUE)
    pg <- predict(f, newdata = data.frame(x = grid), se = TRUE)
    list(f = f, pd = pd, pg = pg)
  })
  v <- r$value
  cases[[id]] <<- list(
    note = note, x = J(x), y = J(y), w = if (is.null(w)) NULL else J(w),
    span = span, degree = degree, family = family, surface = surface, statistics = statistics,
    cell = cell, grid = J(grid),
    fitted = J(v$f$fitted), s = J(v$f$s), one_delta = J(v$f$one.delta), two_delta = J(v$f$two.delta),
    trace_hat = J(v$f$trace.hat), enp = J(v$f$enp), robust = J(v$f$robust),
    data_fit = J(v$pd$fit), data_se = J(v$pd$se.fit),
    grid_fit = J(v$pg$fit), grid_se = J(v$pg$se.fit),
    warnings = r$warnings)
}

set.seed(35)
n <- 200
x <- runif(n)
y <- rbinom(n, 1, x)
fit_case("binary_200", x, y, note = "R's defaults, binary outcome")
fit_case("binary_200_deg1", x, y, degree = 1)
fit_case("binary_200_deg0", x, y, degree = 0, statistics = "approximate")
fit_case("binary_200_span03", x, y, span = 0.3)
fit_case("binary_200_span12", x, y, span = 1.2)
fit_case("binary_200_cell05", x, y, span = 0.5, cell = 0.05)
fit_case("binary_200_direct", x, y, surface = "direct")
fit_case("binary_200_exact", x, y, statistics = "exact")
fit_case("binary_200_direct_exact", x, y, surface = "direct", statistics = "exact")

w <- rexp(n)
fit_case("weights_200", x, y, w = w, note = "prior weights")
fit_case("weights_200_deg1_span05", x, y, w = w, degree = 1, span = 0.5)
fit_case("weights_200_direct", x, y, w = w, surface = "direct")
w0 <- w; w0[c(7, 77)] <- 0
fit_case("weights_zero", x, y, w = w0, note = "two zero weights: R's se is NaN (0 / 0 in every row)")

yc <- sin(4 * x) + rnorm(n, sd = 0.3)
yc[c(5, 50, 150)] <- yc[c(5, 50, 150)] + c(4, -5, 6)
fit_case("symmetric_200", x, yc, family = "symmetric", note = "outliers, robustness iterations")
fit_case("symmetric_200_weights", x, yc, w = w, family = "symmetric", span = 0.5)
fit_case("gaussian_cont_200", x, yc)

# ties: probabilities rounded to two decimals, and a heavy tie at one value
xt <- round(runif(300, 0.05, 0.95), 2)
yt <- rbinom(300, 1, xt)
fit_case("ties_300", xt, yt, note = "x rounded to 0.01")
xt2 <- c(rep(0.2, 120), runif(180, 0.1, 0.9))
yt2 <- rbinom(300, 1, xt2)
fit_case("ties_heavy_300", xt2, yt2, note = "120 of 300 x equal")
xt3 <- round(runif(400), 1)
yt3 <- rbinom(400, 1, pmin(pmax(xt3, 0.05), 0.95))
fit_case("ties_11_values", xt3, yt3, note = "11 distinct x values (pseudo-inverses, R's warnings)")

# larger, skewed probabilities like a risk model's
n2 <- 3000
lp <- rnorm(n2, -1.5, 1.2)
p2 <- plogis(lp)
y2 <- rbinom(n2, 1, plogis(0.8 * lp - 0.2))
fit_case("risk_3000", p2, y2, note = "n = 3000, skewed risks")

# degenerate neighbourhoods: R's warnings (all data on the boundary, pseudo-inverses)
x3 <- c(rep(c(0.1, 0.5, 0.9), each = 30), seq(0.05, 0.95, length.out = 20))
y3 <- rbinom(110, 1, x3)
fit_case("three_values_span05", x3, y3, span = 0.5, note = "90 of 110 x at three values")
x4 <- rep(c(0.1, 0.3, 0.5, 0.7, 0.9), each = 20)
y4 <- rbinom(100, 1, x4)
fit_case("five_values_span05", x4, y4, span = 0.5, degree = 1, note = "five distinct x")

# three values, 2001 times each (R's default span): every neighbourhood holds two values
x6 <- rep(c(0.1, 0.5, 0.9), each = 2001)
fit_case("three_values_6003", x6, rbinom(length(x6), 1, x6), note = "rank-deficient local quadratics")

# zero-width neighbourhoods (three values, span 0.3): R's warnings, NaN fits, predict's error
x5 <- rep(c(0.1, 0.5, 0.9), each = 30)
y5 <- rbinom(90, 1, x5)
zw <- capture_all(loess(y ~ x, data = data.frame(x = x5, y = y5), span = 0.3))
zp <- tryCatch(predict(zw$value, newdata = data.frame(x = 0.3)), error = function(e) conditionMessage(e))
degenerate <- list(x = J(x5), y = J(y5), span = 0.3, fitted = J(zw$value$fitted), warnings = I(zw$warnings),
                   predict_error = zp)

small <- c(0.12, 0.3, 0.31, 0.45, 0.5, 0.52, 0.61, 0.7, 0.82, 0.9, 0.95, 0.33)
fit_case("small_12", small, c(0, 0, 1, 0, 1, 1, 0, 1, 1, 1, 1, 0), note = "n = 12")

# pmcalibration's man page example (binary outcome), as pmcalibration's loess sees it: the
# logit of p (transf = "logit"), R's default loess; and pmcalibration(smooth = "loess",
# ci = "pw") itself
suppressMessages(library(pmcalibration))
set.seed(2)
dat <- sim_dat(N = 500, a1 = .5, a3 = .2)
pm <- with(dat, invlogit(.5 + x1 + x2 + x1 * x2 * .1))
fit_case("pmcalibration_man", qlogis(pm), dat$y, note = "pmcalibration's man example data, logit(p)")
pc <- capture_all(pmcalibration(y = dat$y, p = pm, smooth = "loess", ci = "pw"))$value
cases$pmcalibration_man$pmcalibration <- list(
  p = J(pm), metrics = J(unlist(pc$metrics)), p_c = J(pc$p_c$p_c),
  plot_p = J(pc$plot$p), p_c_plot = J(pc$plot$p_c_plot), p_c_plot_se = J(pc$plot$p_c_plot_se))

writeLines(toJSON(c(cases, list(zero_width = degenerate)), auto_unbox = TRUE, json_verbatim = TRUE, null = "null"),
           "tests/fixtures/loess.json")
cat("wrote tests/fixtures/loess.json:", length(cases), "cases\n")
