# Reference values for calstats.ports.mgcv.cox_ph (mgcv 1.8-41, family = cox.ph()), as
# pmcalibration 0.2.0's gam_cal fits time-to-event calibration curves:
#   gam(times ~ s(x, k, fx, bs), family = cox.ph(), weights = events, method = method)
#   predict(fit, type = "response", newdata = data.frame(times = t0, x = xnew), se.fit = TRUE)
# Run from the repository root:  Rscript tools/r-reference/make_gam_cox.R
# Writes tests/fixtures/gam_cox.json (inputs included, so the tests never run R).
suppressPackageStartupMessages({
  library(mgcv)
  library(jsonlite)
})
stopifnot(packageVersion("mgcv") == "1.8.41")
source("tools/r-reference/fixture_json.R")
J <- json_num_null


sim <- function(n, cens, ties, seed) {
  set.seed(seed)
  lp <- rnorm(n)
  p <- 1 - exp(-0.3 * exp(0.8 * lp))            # predicted risk at t = 1
  x <- log(-log(1 - p))                          # cloglog of the prediction
  t_ev <- rweibull(n, shape = 1.2, scale = exp(-(0.9 * lp + 0.3 * lp^2) / 1.2))
  # exponential censoring whose median splits the event times at the requested fraction
  # (the censored share comes out near it: 24-31 % and 72-76 % in these cases)
  rate <- uniroot(function(r) mean(t_ev > qexp(0.5, r)) - cens, c(1e-4, 1e4))$root
  set.seed(seed + 1)
  t_c <- rexp(n, rate)
  time <- pmin(t_ev, t_c)
  if (ties) time <- round(time, 1) + 0.1
  list(time = time, status = as.numeric(t_ev <= t_c), x = x)
}

cases <- list(
  list(name = "n100_c20_ties_tp_k5", n = 100, cens = 0.2, ties = TRUE, seed = 11,
       k = 5, bs = "tp", fx = FALSE, method = "REML"),
  list(name = "n100_c80_tp_default", n = 100, cens = 0.8, ties = FALSE, seed = 12,
       k = -1, bs = "tp", fx = FALSE, method = "REML"),
  list(name = "n300_c80_ties_tp_default", n = 300, cens = 0.8, ties = TRUE, seed = 13,
       k = -1, bs = "tp", fx = FALSE, method = "REML"),
  list(name = "n300_c20_cr_k5_gcv", n = 300, cens = 0.2, ties = FALSE, seed = 14,
       k = 5, bs = "cr", fx = FALSE, method = "GCV.Cp"),
  list(name = "n1000_c20_ties_tp_default_gcv", n = 1000, cens = 0.2, ties = TRUE, seed = 15,
       k = -1, bs = "tp", fx = FALSE, method = "GCV.Cp"),
  list(name = "n1000_c80_cr_default", n = 1000, cens = 0.8, ties = FALSE, seed = 16,
       k = -1, bs = "cr", fx = FALSE, method = "REML"),
  list(name = "n300_c20_ties_tp_k5_fx", n = 300, cens = 0.2, ties = TRUE, seed = 17,
       k = 5, bs = "tp", fx = TRUE, method = "GCV.Cp"),
  list(name = "n1000_c80_cr_default_fx", n = 1000, cens = 0.8, ties = FALSE, seed = 18,
       k = -1, bs = "cr", fx = TRUE, method = "REML"),
  list(name = "n1000_c20_tp_k5", n = 1000, cens = 0.2, ties = FALSE, seed = 19,
       k = 5, bs = "tp", fx = FALSE, method = "REML")
)

out <- list()
for (cs in cases) {
  d0 <- sim(cs$n, cs$cens, cs$ties, cs$seed)
  d <- data.frame(times = d0$time, events = d0$status, x = d0$x)
  k <- cs$k; bs <- cs$bs; fx <- cs$fx
  fit <- gam(times ~ s(x, k = k, fx = fx, bs = bs), data = d, family = cox.ph(),
             weights = events, method = cs$method)
  t0 <- as.numeric(quantile(d$times, 0.5))
  xp <- seq(min(d$x) - 0.5, max(d$x) + 0.5, length.out = 25)
  pr <- predict(fit, type = "response", newdata = data.frame(times = t0, x = xp), se.fit = TRUE)
  pd <- predict(fit, type = "response", newdata = data.frame(times = t0, x = d$x))
  tv <- c(min(d$times) / 2, sort(unique(d$times))[c(1, 3)], t0, max(d$times), 2 * max(d$times))
  pt <- predict(fit, type = "response", newdata = data.frame(times = tv, x = rep(xp[10], length(tv))),
                se.fit = TRUE)
  out[[cs$name]] <- list(
    time = J(d$times), status = J(d$events), x = J(d$x),
    k = cs$k, bs = cs$bs, fx = cs$fx, method = cs$method, fit_method = fit$method,
    coefficients = J(coef(fit)), vcov = J(vcov(fit)), sp = J(if (fx) NA else fit$sp),
    edf = J(sum(fit$edf)), iter = J(if (fx) 0 else fit$outer.info$iter),
    score = J(fit$gcv.ubre), censored = J(mean(d$events == 0)),
    t0 = J(t0), xp = J(xp), surv_xp = J(pr$fit), se_xp = J(pr$se.fit),
    surv_x = J(pd), tv = J(tv), surv_tv = J(pt$fit), se_tv = J(pt$se.fit)
  )
  cat(cs$name, "sp", fit$sp, "iter", fit$outer.info$iter, "cens", mean(d$events == 0),
      "method", fit$method, "\n")
}
writeLines(toJSON(out, auto_unbox = TRUE, pretty = FALSE, json_verbatim = TRUE), "tests/fixtures/gam_cox.json")
