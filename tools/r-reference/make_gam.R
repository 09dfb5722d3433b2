# Reference values for calstats.ports.mgcv.gam: mgcv::gam(y ~ s(x, k, fx, bs), binomial, method)
# for one smooth of one covariate with a 0/1 response, as pmcalibration's smooth = "gam" fits it.
# Run from the repository root: Rscript tools/r-reference/make_gam.R
suppressPackageStartupMessages({library(mgcv); library(jsonlite)})
stopifnot(packageVersion("mgcv") == "1.8.41")

one_case <- function(name, x, y, k = -1, bs = "tp", fx = FALSE, method = "GCV.Cp",
                     full = FALSE, ngrid = 25) {
  d <- data.frame(x = x, y = y)
  fit <- gam(y ~ s(x, k = k, fx = fx, bs = bs), family = binomial(link = "logit"),
             data = d, method = method)
  grid <- seq(min(x) - 0.1 * diff(range(x)), max(x) + 0.1 * diff(range(x)), length.out = ngrid)
  pr <- predict(fit, newdata = data.frame(x = grid), type = "response", se.fit = TRUE)
  prl <- predict(fit, newdata = data.frame(x = grid), type = "link", se.fit = TRUE)
  out <- list(name = name, k = k, bs = bs, fx = fx, method = method,
              x = x, y = y,
              fitted = as.numeric(fitted(fit)),
              linear_predictors = as.numeric(fit$linear.predictors),
              grid = grid,
              pred = as.numeric(pr$fit), se = as.numeric(pr$se.fit),
              pred_link = as.numeric(prl$fit), se_link = as.numeric(prl$se.fit),
              sp = if (length(fit$sp)) as.numeric(fit$sp) else NULL,
              edf = sum(fit$edf),
              score = as.numeric(fit$gcv.ubre),
              outer_iter = if (is.null(fit$outer.info$iter)) 0L else fit$outer.info$iter,
              outer_grad = if (is.null(fit$outer.info$grad)) NULL else as.numeric(fit$outer.info$grad),
              iter = fit$iter,
              S_scale = fit$smooth[[1]]$S.scale)
  if (full) {
    out$coefficients <- as.numeric(coef(fit))
    out$vcov <- unname(vcov(fit))
    out$lpmatrix <- unname(predict(fit, newdata = data.frame(x = grid), type = "lpmatrix"))
    if (length(fit$smooth[[1]]$S)) out$S <- unname(fit$smooth[[1]]$S[[1]])
  }
  out
}

cases <- list()
add <- function(...) cases[[length(cases) + 1]] <<- one_case(...)

set.seed(20261125)
x <- runif(30, -3, 3); y <- rbinom(30, 1, plogis(0.5 * x + sin(x)))
add("n30_gcv", x, y, full = TRUE)
add("n30_reml", x, y, method = "REML", full = TRUE)

x <- rnorm(200); y <- rbinom(200, 1, plogis(-0.3 + x - 0.5 * x^2))
add("n200_gcv", x, y, full = TRUE)
add("n200_reml", x, y, method = "REML")
add("n200_k5", x, y, k = 5, full = TRUE)
add("n200_k20_reml", x, y, k = 20, method = "REML")
add("n200_fx", x, y, fx = TRUE, full = TRUE)
add("n200_cr", x, y, bs = "cr", full = TRUE)
add("n200_cr_reml_k20", x, y, bs = "cr", k = 20, method = "REML")

x <- runif(1000, -2, 2); y <- rbinom(1000, 1, plogis(1.5 * x))
add("n1000_linear", x, y)
add("n1000_linear_reml", x, y, method = "REML")

x <- runif(1000, 0, 1); y <- rbinom(1000, 1, plogis(2 * sin(4 * pi * x)))
add("n1000_wiggly", x, y)
add("n1000_wiggly_k20", x, y, k = 20)
add("n1000_wiggly_k20_reml", x, y, k = 20, method = "REML")

x <- round(rnorm(400), 1); y <- rbinom(400, 1, plogis(x - 0.4 * x^2))
add("n400_ties", x, y)
add("n400_ties_reml", x, y, method = "REML")

# exactly 10 unique values: the basis needs no eigen-decomposition (tprs "pure knot" case)
x <- rep(1:10, 20); y <- rbinom(200, 1, plogis((x - 5) / 3))
add("n200_tenvalues", x, y, full = TRUE)
# symmetric grid: the centred covariate sums to exactly 0, so the constraint skips that column
x <- rep(seq(-3, 3, by = 0.25), 8); y <- rbinom(length(x), 1, plogis(x - 0.3 * x^2))
add("n200_symmetric", x, y, full = TRUE)
add("n200_symmetric_fx_reml", x, y, fx = TRUE, method = "REML", full = TRUE)
add("n200_symmetric_cr_fx", x, y, bs = "cr", fx = TRUE)
add("n200_symmetric_cr_k5", x, y, bs = "cr", k = 5, method = "REML")

# logit of predicted risks, as pmcalibration passes them
p <- plogis(rnorm(2500, -1, 1.2)); y <- rbinom(2500, 1, plogis(1.2 * qlogis(p) + 0.3))
x <- qlogis(p)
add("n2500_maxknots", x, y)
add("n2500_maxknots_reml", x, y, method = "REML")

# more rows than max.knots but fewer unique values: the unique values are the knots
x <- round(rnorm(2200), 2); y <- rbinom(2200, 1, plogis(0.8 * x))
add("n2200_ties", x, y)
add("n2200_ties_cr_k20", x, y, bs = "cr", k = 20)

writeLines(toJSON(list(mgcv = as.character(packageVersion("mgcv")), cases = cases),
                  digits = NA, auto_unbox = TRUE, null = "null"),
           "tests/fixtures/gam.json")
