#!/usr/bin/env Rscript
# R references for calstats.cal_spline: a logistic regression of the labels on a spline of
# the (logit-transformed) score.
#
#   basis "rcs": rms::lrm(y ~ rcs(qlogis(p), knots)) with Harrell's knots
#                (Hmisc::rcspline.eval), and the same model by glm() on the rcspline.eval
#                design (for predict.glm's standard errors);
#   basis "ns":  glm(y ~ splines::ns(qlogis(p), df = , knots = ), binomial);
#   basis "gam": mgcv::gam(y ~ s(qlogis(p)), binomial, method = "REML").
#
# Each case records the inputs, the knots, the coefficients, the fitted probabilities,
# the predictions at new scores (inside and outside the training range) and
# predict(type = "link", se.fit = TRUE) there, and the warnings R gave.
#
# Writes tests/fixtures/spline.json (run from the repository root):
#   Rscript tools/r-reference/make_spline.R
suppressPackageStartupMessages({library(rms); library(splines); library(mgcv); library(jsonlite)})
stopifnot(packageVersion("rms") == "6.5.0", packageVersion("Hmisc") == "4.8.0",
          packageVersion("mgcv") == "1.8.41")
source("tools/r-reference/fixture_json.R")
J <- json_num_null

cases <- list()
add <- function(case) cases[[length(cases) + 1]] <<- case

# new scores: the training range and one unit of z beyond it on either side
new_z <- function(z, n = 21) seq(min(z) - 1, max(z) + 1, length.out = n)

one_case <- function(id, p, y, basis, transf = "logit", knots = 5, df = NULL, w = NULL) {
  z <- if (transf == "logit") qlogis(p) else p
  zn <- new_z(z)
  newp <- if (transf == "logit") plogis(zn) else zn
  zn <- if (transf == "logit") qlogis(newp) else zn
  case <- list(id = id, basis = basis, transf = transf, p = J(p), y = J(y), newp = J(newp))
  if (!is.null(w)) case$weights <- J(w)
  if (length(knots) > 1) case$knots <- J(knots) else case$knots <- knots
  if (!is.null(df)) case$df <- df
  if (basis == "rcs") {
    r <- capture_all(rcspline.eval(z, knots = if (length(knots) > 1) knots else NULL,
                                   nk = if (length(knots) > 1) length(knots) else knots, inclx = TRUE))
    X <- r$value
    kn <- attr(X, "knots")
    d <- data.frame(y = y, X)
    ww <- if (is.null(w)) rep(1, length(y)) else w
    g <- glm(y ~ ., data = d, family = binomial, weights = ww)
    dn <- data.frame(rcspline.eval(zn, knots = kn, inclx = TRUE))
    names(dn) <- names(d)[-1]
    # rms::lrm on the same model (its own Newton iterations and stopping rule)
    dz <- data.frame(y = y, z = z, ww = ww)
    # rcs() reads its knots from the call, so they go into the formula as numbers
    fo <- eval(bquote(y ~ rcs(z, .(kn))))
    f0 <- suppressWarnings(if (is.null(w)) lrm(fo, data = dz) else lrm(fo, data = dz, weights = ww))
    # lrm.fit's default stopping rule (a change in -2 log L below 0.025) leaves the
    # coefficients ~1e-5 from the maximum; eps = 1e-12 iterates to it
    f <- suppressWarnings(if (is.null(w)) lrm(fo, data = dz, eps = 1e-12, maxit = 100) else
      lrm(fo, data = dz, weights = ww, eps = 1e-12, maxit = 100))
    case$lrm_coefficients <- J(coef(f))
    case$lrm_coefficients_default <- J(coef(f0))
    case$lrm_pred <- J(predict(f, newdata = data.frame(z = zn), type = "fitted"))
    case$warnings <- as.list(r$warnings)
    case$knots_out <- J(kn)
  } else if (basis == "ns") {
    d <- data.frame(y = y, z = z)
    ww <- if (is.null(w)) rep(1, length(y)) else w
    g <- if (length(knots) > 1) glm(y ~ ns(z, knots = knots), data = d, family = binomial, weights = ww)
         else glm(y ~ ns(z, df = df), data = d, family = binomial, weights = ww)
    b <- if (length(knots) > 1) ns(z, knots = knots) else ns(z, df = df)
    dn <- data.frame(z = zn)
    case$knots_out <- J(attr(b, "knots"))
    case$boundary_knots <- J(attr(b, "Boundary.knots"))
    case$warnings <- list()
  } else {
    d <- data.frame(y = y, z = z)
    g <- gam(y ~ s(z), family = binomial, data = d, method = "REML")
    dn <- data.frame(z = zn)
    case$sp <- J(g$sp)
    case$edf <- J(sum(g$edf))
    case$warnings <- list()
  }
  case$coefficients <- J(coef(g))
  case$fitted <- J(fitted(g))
  case$deviance <- J(deviance(g))
  case$pred <- J(predict(g, newdata = dn, type = "response"))
  pl <- predict(g, newdata = dn, type = "link", se.fit = TRUE)
  case$pred_link <- J(pl$fit)
  case$se_link <- J(pl$se.fit)
  add(case)
}

# R's glm() stops on a relative deviance change of 1e-8: on this sample its coefficients
# are within ~1e-9 of the maximum likelihood (on other samples, with nearly collinear
# rcs columns, 1e-5), so the converged lrm() and glm() agree to the tolerance tested
set.seed(4)
n <- 300
p <- plogis(rnorm(n, -0.3, 1.2))
y <- rbinom(n, 1, plogis(0.2 + 0.8 * qlogis(p) + 0.4 * sin(1.5 * qlogis(p))))
one_case("random_rcs5", p, y, "rcs")
one_case("random_rcs3", p, y, "rcs", knots = 3)
one_case("random_rcs7", p, y, "rcs", knots = 7)
one_case("random_ns4", p, y, "ns", df = 4)
one_case("random_ns2", p, y, "ns", df = 2)
one_case("random_gam", p, y, "gam")
one_case("knots_rcs", p, y, "rcs", knots = c(-2, -1, 0, 0.5, 1.5))
one_case("knots_ns", p, y, "ns", knots = c(-1, 0, 1))
w <- sample(1:4, n, replace = TRUE)
one_case("weights_rcs5", p, y, "rcs", w = w)
one_case("weights_ns4", p, y, "ns", df = 4, w = w)

# fewer than 100 observations: Harrell's outer knots at the 5th smallest and largest values
p <- plogis(rnorm(60, 0, 1)); y <- rbinom(60, 1, p)
one_case("small_rcs4", p, y, "rcs", knots = 4)

# heavy ties
p <- round(plogis(rnorm(400, 0, 1.2)), 2); p[p == 0] <- 0.01; p[p == 1] <- 0.99
y <- rbinom(400, 1, p)
one_case("ties_rcs5", p, y, "rcs")
one_case("ties_ns4", p, y, "ns", df = 4)
one_case("ties_gam", p, y, "gam")

# seven distinct values with five knots: Hmisc's warning, the interior values as knots
p <- rep(c(0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 0.9), each = 30); y <- rbinom(length(p), 1, p)
one_case("fewvalues_rcs5", p, y, "rcs")

# a wiggly map: the smoothing parameter is small and the fits are not monotone
p <- plogis(runif(250, -3, 3)); y <- rbinom(250, 1, plogis(1.5 * sin(1.5 * qlogis(p))))
one_case("wiggly_gam", p, y, "gam")
one_case("wiggly_rcs5", p, y, "rcs")

# identity transform (the score itself is the spline's argument)
x <- rnorm(250, 0, 1.5); y <- rbinom(250, 1, plogis(0.5 * x - 0.1 * x^2 + 0.3))
one_case("identity_rcs4", x, y, "rcs", transf = "identity", knots = 4)
one_case("identity_ns3", x, y, "ns", transf = "identity", df = 3)
one_case("identity_gam", x, y, "gam", transf = "identity")

out <- list(generator = "tools/r-reference/make_spline.R", R = R.version.string,
            rms = as.character(packageVersion("rms")), mgcv = as.character(packageVersion("mgcv")),
            cases = lapply(cases, enc))
writeLines(toJSON(out, auto_unbox = TRUE, null = "null", json_verbatim = TRUE),
           "tests/fixtures/spline.json")
