# rms::lrm (rms 6.5-0, R 4.2.2) fits with the formula terms an rms user writes, for
# calstats.clinical.lrm: coefficients, covariance, stats, linear predictors, predictions on
# new data, the knots, and the printed output (capture.output(print(fit))).
# Run from the repository root: Rscript tools/r-reference/make_rms_lrm.R
suppressMessages(library(rms))
library(jsonlite)
source("tools/r-reference/fixture_json.R")

set.seed(20240601)
n <- 300
mk <- function(n) {
  d <- data.frame(age = round(rnorm(n, 50, 10), 1), w = round(rnorm(n), 3), z = rnorm(n),
                  sex = factor(sample(c("female", "male"), n, TRUE)),
                  grp = factor(sample(c("a", "b", "c"), n, TRUE)),
                  ch = sample(c("u", "v"), n, TRUE), lg = sample(c(TRUE, FALSE), n, TRUE),
                  wt = round(runif(n, 0.2, 3), 2), stringsAsFactors = FALSE)
  lp <- -0.3 + 0.05 * (d$age - 50) + 0.7 * (d$sex == "male") + 0.4 * d$w - 0.3 * d$w^2 +
    0.5 * (d$grp == "c")
  d$y <- rbinom(n, 1, plogis(lp))
  u <- lp + rlogis(n)
  d$yo <- as.integer(cut(u, c(-Inf, -0.5, 0.8, Inf)))            # 3 ordered levels
  d$yo4 <- as.integer(cut(u, c(-Inf, -1, 0, 1, Inf))) - 1L       # 4 levels (0..3)
  d
}
data <- mk(n)
newdata <- mk(12)
small <- data[1:40, ]

cases <- list()
add <- function(id, fs, dat = "data", weights = NULL, note = "", extra = "") {
  data <- get(dat)
  call <- if (is.null(weights)) sprintf("lrm(%s, data = data%s)", fs, extra) else
    sprintf("lrm(%s, data = data, weights = %s%s)", fs, weights, extra)
  res <- capture_all(eval(parse(text = call)))
  f <- res$value
  out <- list(id = id, formula = fs, data = dat, weights = weights, note = note, extra = extra,
              warnings = res$warnings, print = capture.output(print(f)))
  if (isTRUE(f$fail)) {
    out$fail <- TRUE
    out$coefficients <- if (length(f$coefficients)) enc(f$coefficients)
  } else {
    out$fail <- FALSE
    out$coef_names <- names(coef(f))
    out$coefficients <- enc(coef(f))
    out$var <- enc(as.vector(f$var))
    out$stats_names <- names(f$stats)
    out$stats <- enc(f$stats)
    out$deviance <- enc(f$deviance)
    out$linear_predictors <- enc(f$linear.predictors)
    out$freq <- enc(as.vector(f$freq))
    out$parms <- lapply(f$Design$parms, function(p) if (is.numeric(p)) enc(p) else p)
    if (dat == "data") {
      out$predict_lp <- enc(predict(f, newdata, type = "lp"))
      pf <- predict(f, newdata, type = "fitted")
      out$predict_fitted <- enc(as.vector(pf))
      out$predict_fitted_dim <- dim(as.matrix(pf))
    }
  }
  cases[[length(cases) + 1]] <<- out
}
add("linear", "y ~ age")
add("main", "y ~ rcs(age, 4) * sex + pol(w, 2) + grp")
add("knots_given", "y ~ rcs(age, c(35, 45, 55, 65)) + sex")
add("rcs_default", "y ~ rcs(age) + w")
add("rcs_rcs", "y ~ rcs(age, 3) * rcs(w, 3)")
add("threeway", "y ~ age * w * z")
add("pol_factor", "y ~ pol(w, 3) * grp")
add("factor_factor", "y ~ sex * grp + age")
add("char_logical", "y ~ ch + lg + age")
add("weighted", "y ~ age + sex", weights = "wt")
add("weighted_rcs", "y ~ rcs(age, 4) + grp", weights = "wt")
add("ordinal3", "yo ~ age + sex + w")
add("ordinal4", "yo4 ~ rcs(age, 3) + sex")
add("small_rcs", "y ~ rcs(age, 4) + sex", dat = "small")
add("long_formula", "y ~ rcs(age, 4) + sex + pol(w, 2) + grp + ch + lg + z + sex:grp + z:grp")
add("very_long", "y ~ rcs(age, c(30, 40, 45, 50, 55, 60, 70)) + pol(w, 3) + sex + grp + ch + lg + z + sex:grp + z:grp + ch:z",
    extra = ", tol = 1e-08, maxit = 20")

# separation: R warns and returns a failed fit
sep <- data.frame(x = c(1:10, 11:20), y = c(rep(0, 10), rep(1, 10)))
res <- capture_all(lrm(y ~ x, data = sep))
cases[[length(cases) + 1]] <- list(id = "separation", formula = "y ~ x", data = "sep",
  warnings = res$warnings, print = capture.output(print(res$value)), fail = TRUE,
  coefficients = enc(res$value$coefficients))
# singular: collinear columns
data$w2 <- data$w * 2
res <- capture_all(capture.output(f <- lrm(y ~ w + w2 + age, data = data)))
cases[[length(cases) + 1]] <- list(id = "singular", formula = "y ~ w + w2 + age", data = "data",
  warnings = res$warnings, output = res$value, fail = TRUE)
data$w2 <- NULL

cols <- function(d) lapply(d, function(v) if (is.numeric(v) && !is.integer(v)) enc(v) else v)
out <- list(r_version = R.version.string, rms_version = as.character(packageVersion("rms")),
            data = cols(data), newdata = cols(newdata), small = cols(small), sep = cols(sep),
            cases = cases)
writeLines(toJSON(out, auto_unbox = TRUE, null = "null", json_verbatim = TRUE, digits = NA),
           "tests/fixtures/rms_lrm.json")
