#!/usr/bin/env Rscript
# R references for calstats.evaluation.corp (CORP reliability diagrams, Dimitriadis,
# Gneiting and Jordan 2021), from the R package reliabilitydiag 0.2.1.9000:
#   * reliabilitydiag(x, y = y, region.method = "discrete_asymptotics") -- the sorted cases
#     with their PAV values (CEP_pav), the PAV bins and the discrete-asymptotics consistency
#     (region.position = "diagonal") or confidence ("estimate") band;
#   * set.seed(s); reliabilitydiag(x, y = y, region.method = "resampling", n.boot = B) -- the
#     resampling band drawn with R's sample() and rbinom();
#   * summary(r) (Brier) and summary(r, score = f) for the log score and a user function;
#   * set.seed(s); miscalibration_test(x, y = y);
#   * set.seed(1); rbinom(n, 1, p) for calstats.rng._draws._rbinom1;
#   * case weights (not in reliabilitydiag): the references are the rows replicated by
#     integer weights;
#   * multiclass: the top-label ("confidence") pairs and the one-vs-rest ("classwise")
#     columns built here and passed to reliabilitydiag one by one.
# monotone is not installed, so reliabilitydiag uses stats::isoreg(y)$yf (checked below).
# bde is an empty stand-in here, so "continuous_asymptotics" cannot run in R and has no
# reference.
#
# Writes tests/fixtures/corp.json (run from the repository root):
#   Rscript tools/r-reference/make_corp.R
suppressPackageStartupMessages({
  library(jsonlite)
  library(reliabilitydiag)
})
stopifnot(!requireNamespace("monotone", quietly = TRUE))

J <- function(x) {
  x <- as.numeric(unname(x))
  s <- sprintf("%.17g", x)
  s[is.na(x)] <- '"NA"'
  s[is.infinite(x) & x > 0] <- '"Inf"'
  s[is.infinite(x) & x < 0] <- '"-Inf"'
  structure(paste0("[", paste(s, collapse = ","), "]"), class = "json")
}

cases <- list()
add <- function(case) cases[[length(cases) + 1]] <<- case

logscore <- function(y, x) -ifelse(y == 1, log(x), log(1 - x))
absscore <- function(y, x) abs(x - y)  # a user function (not proper: only the arithmetic is checked)

quiet <- function(expr) suppressMessages(suppressWarnings(expr))

diagram <- function(x, y, method, position = "diagonal", level = 0.9, n.boot = 100, seed = NULL) {
  if (!is.null(seed)) set.seed(seed)
  quiet(reliabilitydiag(x, y = y, region.method = method, region.position = position,
                        region.level = level, n.boot = n.boot))[[1]]
}

summ <- function(x, y, score) {
  r <- quiet(reliabilitydiag(x, y = y, region.level = NA))
  s <- quiet(summary(r, score = score))
  list(mean_score = J(s$mean_score), miscalibration = J(s$miscalibration),
       discrimination = J(s$discrimination), uncertainty = J(s$uncertainty))
}

band <- function(d) {
  list(x = J(d$regions$x), lower = J(d$regions$lower), upper = J(d$regions$upper),
       n = J(d$regions$n))
}

# one case: x, y (and the rows the references see: replicated for weights)
record <- function(id, x, y, w = NULL, seeds = c(1L), estimate = TRUE, level = 0.9, n.boot = 100,
                   mctest = TRUE) {
  xr <- x; yr <- y
  if (!is.null(w)) {
    idx <- rep(seq_along(x), times = w)
    xr <- x[idx]; yr <- y[idx]
  }
  d <- diagram(xr, yr, "discrete_asymptotics", level = level)
  case <- list(id = id, x = J(x), y = J(y), level = level, n_boot = n.boot,
               cases = list(x = J(d$cases$x), y = J(d$cases$y), CEP_pav = J(d$cases$CEP_pav)),
               bins = list(n = J(d$bins$n), x_min = J(d$bins$x_min), x_max = J(d$bins$x_max),
                           CEP_pav = J(d$bins$CEP_pav)),
               xtype = d$xinfo$type,
               discrete_diagonal = band(d),
               brier = summ(xr, yr, "brier"),
               log = summ(xr, yr, logscore),
               abs = summ(xr, yr, absscore))
  if (!is.null(w)) case$weights <- J(w)
  if (estimate) {
    case$discrete_estimate <- band(diagram(xr, yr, "discrete_asymptotics", "estimate", level = level))
  }
  case$resampling <- lapply(seeds, function(s) {
    out <- list(seed = s, position = "diagonal",
                band = band(diagram(xr, yr, "resampling", "diagonal", level, n.boot, seed = s)))
    out
  })
  if (estimate) {
    case$resampling[[length(case$resampling) + 1]] <- list(
      seed = seeds[1] + 100L, position = "estimate",
      band = band(diagram(xr, yr, "resampling", "estimate", level, n.boot, seed = seeds[1] + 100L)))
  }
  if (mctest) {
    set.seed(seeds[1] + 7L)
    t <- quiet(miscalibration_test(xr, y = yr))
    case$mctest <- list(seed = seeds[1] + 7L, miscalibration = J(t$miscalibration), pvalue = J(t$pvalue))
  }
  # R's default region method (detect_regionmethod)
  case$auto_method <- quiet(reliabilitydiag(xr, y = yr))[[1]]$regions$method[1]
  add(case)
}

# 1. random scores, n = 200
set.seed(20240501)
x <- runif(200)
y <- as.numeric(runif(200) < x^1.4)
record("random_200", x, y, seeds = c(1L, 42L))

# 2. heavy ties: scores rounded to 0.1
set.seed(7)
x <- round(runif(300), 1)
y <- as.numeric(runif(300) < pmin(1, x * 1.2 + 0.05))
record("ties_0.1", x, y, seeds = c(3L))

# 3. one distinct score
set.seed(11)
x <- rep(0.3, 40)
y <- as.numeric(runif(40) < 0.35)
record("one_score", x, y, seeds = c(5L))

# 4. all y = 0
set.seed(12)
x <- runif(60) * 0.4
y <- rep(0, 60)
record("all_zero", x, y, seeds = c(6L))

# 5. the precipitation data of the package (EMOS and ENS)
data("precip_Niamey_2016", package = "reliabilitydiag")
record("precip_emos", precip_Niamey_2016$EMOS, precip_Niamey_2016$obs, seeds = c(2016L))
record("precip_ens", precip_Niamey_2016$ENS, precip_Niamey_2016$obs, seeds = c(17L), level = 0.5,
       n.boot = 37)

# 6. rounding: scores one ulp apart stay distinct; 0 and 1 as scores
x <- c(0.3, 0.1 * 3, 0.7, 0.1 * 7, 0, 1, 0.5, 0.5, 0.2, 0.9, 0.30000000000000004, 0.6)
y <- c(1, 0, 0, 1, 0, 1, 1, 0, 0, 1, 1, 0)
record("rounding", x, y, seeds = c(9L))

# 7. integer case weights (the reference is the replicated rows)
set.seed(21)
x <- round(runif(80), 2)
y <- as.numeric(runif(80) < x)
w <- sample(0:3, 80, replace = TRUE)
record("weights_int", x, y, w = w, seeds = c(4L))

# 8. larger n with few distinct scores: R's default is the discrete asymptotics
set.seed(31)
x <- round(runif(1500), 1)
y <- as.numeric(runif(1500) < x)
record("discrete_default", x, y, seeds = c(8L), estimate = FALSE, n.boot = 20, mctest = FALSE)

# 9. multiclass: top-label confidence and one-vs-rest columns
set.seed(41)
n <- 150; k <- 3
z <- matrix(rnorm(n * k) * 1.3, n, k)
P <- exp(z) / rowSums(exp(z))
P <- round(P, 3); P[, k] <- 1 - P[, 1] - P[, 2]
cls <- apply(P, 1, function(p) sample.int(k, 1, prob = pmax(p, 0)))
top <- max.col(P, ties.method = "first")
conf <- P[cbind(seq_len(n), top)]
corr <- as.numeric(top == cls)
mc <- list(id = "multiclass", p = lapply(seq_len(n), function(i) J(P[i, ])), y = J(cls))
d <- diagram(conf, corr, "discrete_asymptotics")
mc$confidence <- list(x = J(d$cases$x), CEP_pav = J(d$cases$CEP_pav), band = band(d),
                      brier = summ(conf, corr, "brier"))
mc$classwise <- lapply(seq_len(k), function(j) {
  yj <- as.numeric(cls == j)
  dj <- diagram(P[, j], yj, "discrete_asymptotics")
  list(x = J(dj$cases$x), CEP_pav = J(dj$cases$CEP_pav), band = band(dj), brier = summ(P[, j], yj, "brier"))
})
set.seed(99)
mc$classwise_resampling <- lapply(seq_len(k), function(j) {
  band(quiet(reliabilitydiag(P[, j], y = as.numeric(cls == j), region.method = "resampling",
                             n.boot = 30))[[1]])
})
add(mc)

# 10. rbinom(n, 1, p)
p <- c(0, 1, 0.5, 0.25, 0.75, 1e-300, 1 - 1e-16, 0.1, 0.9, 0.333, 0.999, 0.001,
       0.6, 0.4, 0.5, 0.95, 0.05, 0.7, 0.3, 2^-30)
set.seed(1)
rb <- rbinom(20, 1, p)
after <- runif(3)  # the stream where rbinom left it
add(list(id = "rbinom", p = J(p), draws = J(rb), after = J(after)))
set.seed(2)
p2 <- runif(500)
p2[sample.int(500, 50)] <- 0
p2[sample.int(500, 50)] <- 1
set.seed(123)
add(list(id = "rbinom_500", p = J(p2), draws = J(rbinom(500, 1, p2)), after = J(runif(2))))

out <- list(generator = "tools/r-reference/make_corp.R", r_version = R.version.string,
            reliabilitydiag = as.character(packageVersion("reliabilitydiag")), cases = cases)
writeLines(toJSON(out, auto_unbox = TRUE, digits = NA, json_verbatim = TRUE, pretty = FALSE),
           "tests/fixtures/corp.json")
cat(sprintf("wrote %d cases to tests/fixtures/corp.json\n", length(cases)))
