# pmcalibration 0.2.0's logistic_cal(y, p), its summary (MASS's profile confidence intervals,
# Miller's likelihood-ratio tests) and print, with the pieces in between: the three glm fits,
# MASS's profile.glm steps, spline() of each profile and the intervals of confint().
# Usage: Rscript tools/r-reference/make_logcal.R > tests/fixtures/logcal.json
suppressPackageStartupMessages({
  library(jsonlite)
  library(pmcalibration)
  library(MASS)
})
source("tools/r-reference/fixture_json.R")
J <- json_num_null

glm_info <- function(m) {
  list(coefficients = J(coef(m)), names = I(as.character(names(coef(m)))), deviance = J(m$deviance), aic = J(m$aic),
       null_deviance = J(m$null.deviance), iter = m$iter, rank = m$rank, df_residual = m$df.residual,
       df_null = m$df.null, converged = m$converged, loglik = J(logLik(m)),
       se = J(sqrt(diag(summary(m)$cov.unscaled))))
}

profile_info <- function(m, level) {
  pr <- suppressWarnings(profile(m, alpha = (1 - level) / 4))
  out <- list()
  for (nm in names(pr)) {
    pv <- pr[[nm]][, "par.vals", drop = FALSE]
    pv <- if (length(coef(m)) > 1L) pr[[nm]][, "par.vals"][, nm] else pr[[nm]][, "par.vals"]
    sp <- spline(x = pv, y = pr[[nm]][, 1])
    out[[nm]] <- list(z = J(pr[[nm]][, 1]), par = J(pv), spline_x = J(sp$x), spline_y = J(sp$y))
  }
  out
}

# messages and warnings of an expression, and its value
capture <- function(expr) {
  msgs <- character(); warns <- character()
  val <- withCallingHandlers(expr,
    message = function(m) { msgs <<- c(msgs, conditionMessage(m)); invokeRestart("muffleMessage") },
    warning = function(w) { warns <<- c(warns, conditionMessage(w)); invokeRestart("muffleWarning") })
  list(value = val, messages = msgs, warnings = warns)
}

one_case <- function(name, y, p, levels = 0.95, digits = 2) {
  lc <- capture(logistic_cal(y = y, p = p))
  x <- lc$value
  summaries <- list()
  for (level in levels) {
    s <- capture(summary(x, conf_level = level))
    st <- s$value$stats
    mi <- s$value$miller
    prints <- list()
    for (d in digits) {
      prints[[length(prints) + 1]] <- list(digits = d,
        text = paste0(paste(capture.output(print(s$value, digits = d)), collapse = "\n"), "\n"))
    }
    ci_int <- suppressMessages(suppressWarnings(confint(x$calibration_intercept, level = level)))
    ci_slo <- suppressMessages(suppressWarnings(confint(x$calibration_slope, level = level)))
    summaries[[length(summaries) + 1]] <- list(
      level = level,
      stats = lapply(as.list(st), J), stats_rows = rownames(st), stats_cols = colnames(st),
      miller = lapply(as.list(mi), J), miller_rows = rownames(mi), miller_cols = colnames(mi),
      warnings = I(s$warnings),
      confint_intercept = J(ci_int), confint_intercept_names = names(ci_int),
      confint_slope = J(ci_slo), confint_slope_dimnames = dimnames(ci_slo),
      profile_intercept = profile_info(x$calibration_intercept, level),
      profile_slope = profile_info(x$calibration_slope, level),
      prints = prints)
  }
  list(name = name, y = J(y), p = J(p), messages = I(lc$messages), warnings = I(lc$warnings),
       m_fixed = glm_info(x$m_fixed), m_int = glm_info(x$calibration_intercept),
       m_intslo = glm_info(x$calibration_slope), summaries = summaries)
}

cases <- list()
set.seed(20231)
sim <- function(n, a, b) {
  x <- rnorm(n)
  lp <- a + b * x
  list(lp = lp, y = rbinom(n, 1, plogis(lp)))
}

d <- sim(400, -0.4, 1.1)
cases[[length(cases) + 1]] <- one_case("well calibrated", d$y, plogis(d$lp), levels = c(0.95, 0.8),
                                       digits = c(2, 3, 4))
d <- sim(400, -0.2, 1)
cases[[length(cases) + 1]] <- one_case("overconfident", d$y, plogis(d$lp * 1.5))
d <- sim(400, 0.3, 1.2)
cases[[length(cases) + 1]] <- one_case("underconfident", d$y, plogis(d$lp * 0.5), digits = c(2, 5))
d <- sim(600, -3.3, 0.8)
cases[[length(cases) + 1]] <- one_case("rare outcome", d$y, plogis(d$lp + 0.2))
d <- sim(30, 0.1, 1)
cases[[length(cases) + 1]] <- one_case("n = 30", d$y, plogis(d$lp), levels = c(0.95, 0.99))
d <- sim(2000, -0.5, 0.9)
cases[[length(cases) + 1]] <- one_case("n = 2000", d$y, plogis(0.1 + d$lp))
d <- sim(300, 0, 5)
cases[[length(cases) + 1]] <- one_case("p near 0 and 1", d$y, plogis(d$lp * 1.3))
d <- sim(200, 0.2, 1)
p <- plogis(d$lp); p[c(3, 50)] <- c(0, 1); p[77] <- 1
cases[[length(cases) + 1]] <- one_case("p exactly 0 or 1", d$y, p)
d <- sim(200, -0.3, 1)
p <- plogis(d$lp * 1.2); yy <- d$y
p[c(5, 9)] <- NA; yy[c(9, 120)] <- NA; p[150] <- 0
cases[[length(cases) + 1]] <- one_case("NA rows", yy, p)
d <- sim(250, 0.5, 0.7)
cases[[length(cases) + 1]] <- one_case("strong miscalibration", d$y, plogis(3 * d$lp - 2), digits = c(2, 3))
d <- sim(150, 0, 1.5)
p <- plogis(c(d$lp, 35, -35.5, 34.2, -36)); yy <- c(d$y, 1, 0, 1, 0)
cases[[length(cases) + 1]] <- one_case("fitted 0 or 1", yy, p)

# R's spline(method = "fmm") and approx(rule = 1) on their own, ties and unsorted x included
splines <- list()
set.seed(7)
xs <- list(sort(rnorm(12)), rnorm(9), c(0.5, 1.25), c(-1, 0.3, 2), c(0, 1, 2, 3.5), c(3, 1, 2, 1, 5, 4.5, 6))
for (x in xs) {
  y <- sin(x) + x^2 / 7
  w <- character()
  sp <- withCallingHandlers(spline(x, y), warning = function(m) {
    w <<- c(w, conditionMessage(m)); invokeRestart("muffleWarning") })
  xo <- c(min(x) - 0.1, quantile(x, c(0.1, 0.5, 0.77)), max(x), max(x) + 1)
  ap <- suppressWarnings(approx(x, y, xout = xo))
  splines[[length(splines) + 1]] <- list(x = J(x), y = J(y), spline_x = J(sp$x), spline_y = J(sp$y),
                                         warnings = I(w), xout = J(xo), approx_y = J(ap$y))
}

cat(toJSON(list(generator = "tools/r-reference/make_logcal.R", R = R.version.string,
                pmcalibration = as.character(packageVersion("pmcalibration")),
                MASS = as.character(packageVersion("MASS")), cases = cases, splines = splines),
           digits = NA, auto_unbox = TRUE, pretty = FALSE, na = "null", json_verbatim = TRUE), "\n")
