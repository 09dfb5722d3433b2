# Delta-method standard errors of Platt scaling and beta calibration: R's
# predict.glm(fit, newdata, se.fit = TRUE, type = "link") for the binomial GLMs that
# probcal's cal_platt (glm on Platt's smoothed targets) and cal_beta (glm on log(p*),
# log(1 - p*)) fit, with and without prior weights. Inputs are generated here and written
# to the fixture with the results.
# Usage: Rscript tools/r-reference/make_predict_se.R > tests/fixtures/predict_se.json
suppressPackageStartupMessages(library(jsonlite))
source("tools/r-reference/fixture_json.R")
J <- json_num_null

link_out <- function(fit, nd) {
  pr <- predict(fit, newdata = nd, se.fit = TRUE, type = "link")
  list(link = J(pr$fit), se_link = J(pr$se.fit), coefficients = J(coef(fit)),
       cov_unscaled = J(as.vector(summary(fit)$cov.unscaled)))
}

platt_case <- function(name, x, y, newx, w = NULL) {
  wc <- if (is.null(w)) rep(1, length(y)) else w
  n_pos <- if (is.null(w)) sum(y == 1) else sum(w[y == 1])
  n_neg <- if (is.null(w)) sum(y == 0) else sum(w[y == 0])
  t <- ifelse(y == 1, (n_pos + 1) / (n_pos + 2), 1 / (n_neg + 2))
  d <- data.frame(t = t, x = x, wc = wc)
  fit <- if (is.null(w)) suppressWarnings(glm(t ~ x, family = binomial, data = d))
         else suppressWarnings(glm(t ~ x, family = binomial, data = d, weights = wc))
  c(list(name = name, method = "platt", x = J(x), y = J(y), weights = if (is.null(w)) NULL else J(w),
         newdata = J(newx)), link_out(fit, data.frame(x = newx)))
}

beta_case <- function(name, p, y, newp, w = NULL, eps = 1e-15) {
  clip <- function(q) pmin(pmax(q, eps), 1 - eps)
  ps <- clip(p)
  d <- data.frame(y = y, log_p = log(ps), log_1mp = log1p(-ps), wc = if (is.null(w)) 1 else w)
  fit <- if (is.null(w)) suppressWarnings(glm(y ~ log_p + log_1mp, family = binomial, data = d))
         else suppressWarnings(glm(y ~ log_p + log_1mp, family = binomial, data = d, weights = wc))
  nps <- clip(newp)
  c(list(name = name, method = "beta", eps = J(eps), p = J(p), y = J(y), weights = if (is.null(w)) NULL else J(w),
         newdata = J(newp)), link_out(fit, data.frame(log_p = log(nps), log_1mp = log1p(-nps))))
}

set.seed(20240611)
cases <- list()
# Platt: a miscalibrated score
x <- rnorm(60, sd = 2); y <- rbinom(60, 1, plogis(0.4 + 0.7 * x))
newx <- c(seq(-6, 6, length.out = 25), 0, x[1:5])
cases[[length(cases) + 1]] <- platt_case("platt_n60", x, y, newx)
x <- rnorm(400); y <- rbinom(400, 1, plogis(-1 + 2.5 * x))
cases[[length(cases) + 1]] <- platt_case("platt_n400", x, y, c(seq(-4, 4, length.out = 41), x[1:9]))
# ties and a narrow score range
x <- round(runif(80, 0.2, 0.8), 1); y <- rbinom(80, 1, x)
cases[[length(cases) + 1]] <- platt_case("platt_ties", x, y, c(seq(0, 1, by = 0.05), 10))
x <- rnorm(100); y <- rbinom(100, 1, plogis(x))
w <- sample(1:4, 100, replace = TRUE)
cases[[length(cases) + 1]] <- platt_case("platt_int_weights", x, y, seq(-3, 3, by = 0.25), w)
w <- runif(100, 0.1, 3)
cases[[length(cases) + 1]] <- platt_case("platt_real_weights", x, y, seq(-3, 3, by = 0.25), w)
# beta: over-confident probabilities
p <- plogis(rnorm(80, sd = 2.5)); y <- rbinom(80, 1, plogis(0.5 * qlogis(p) + 0.3))
newp <- c(1e-20, 1e-8, seq(0.01, 0.99, length.out = 30), 1 - 1e-8, 1, 0)
cases[[length(cases) + 1]] <- beta_case("beta_n80", p, y, newp)
p <- runif(500); y <- rbinom(500, 1, p^2)
cases[[length(cases) + 1]] <- beta_case("beta_n500", p, y, newp)
p <- plogis(rnorm(120)); y <- rbinom(120, 1, p)
cases[[length(cases) + 1]] <- beta_case("beta_eps", p, y, newp, eps = 1e-3)
w <- sample(1:5, 120, replace = TRUE)
cases[[length(cases) + 1]] <- beta_case("beta_int_weights", p, y, newp, w)
w <- rexp(120) + 0.05
cases[[length(cases) + 1]] <- beta_case("beta_real_weights", p, y, newp, w)

cat(toJSON(list(r_version = R.version.string, cases = cases), auto_unbox = TRUE, json_verbatim = TRUE, null = "null"))
cat("\n")
