# Reference names (and the values of the fields the older fixtures do not hold) of the R
# objects whose calstats ports are RObjects with R's field names in R's order:
# survival:::concordancefit(influence = 3), prodlim::prodlim (survival, reverse, competing
# risks), one curve of cmprsk::cuminc, stats::loess (gaussian and symmetric) and
# MASS's profile.glm. Run from the repository root:
#   Rscript tools/r-reference/make_record_names.R
# Writes tests/fixtures/record_names.json.
suppressPackageStartupMessages({library(survival); library(prodlim); library(cmprsk); library(MASS);
  library(jsonlite)})
stopifnot(packageVersion("survival") == "3.5.3", packageVersion("prodlim") == "2019.11.13",
          packageVersion("cmprsk") == "2.2.11")
source("tools/r-reference/fixture_json.R")
J <- json_num_null

time <- c(1, 2, 2, 3, 3, 3, 4, 5, 5, 6, 7, 7)
status <- c(1, 0, 1, 1, 0, 0, 1, 0, 1, 0, 1, 0)
event <- c(1, 0, 2, 1, 0, 0, 2, 0, 1, 0, 2, 0)
x <- c(0.3, 0.1, 0.5, 0.5, 0.2, 0.9, 0.4, 0.6, 0.6, 0.8, 0.7, 0.2)
d <- data.frame(time = time, status = status, event = event, x = x)

cf <- survival:::concordancefit(Surv(time, status), x, influence = 3, reverse = TRUE)

pl <- function(fit, competing = FALSE) {
  out <- list(names = names(fit), time = J(fit$time), n.risk = J(fit$n.risk), n.lost = J(fit$n.lost),
              surv = J(fit$surv), model = fit$model, maxtime = J(fit$maxtime), reverse = fit$reverse,
              type = fit$type)
  if (competing) {
    out$n.event <- lapply(fit$n.event, J)
    out$cuminc <- lapply(fit$cuminc, J)
  } else {
    out$n.event <- J(fit$n.event)
  }
  out
}
km <- prodlim(Hist(time, status) ~ 1, data = d)
rev <- prodlim(Hist(time, status) ~ 1, data = d, reverse = TRUE)
cr <- prodlim(Hist(time, event) ~ 1, data = d)

ci <- cuminc(time, event)

lo <- function(fit) list(names = names(fit), pars = lapply(fit$pars, function(v) if (is.numeric(v) ||
                           is.logical(v)) J(v) else v), divisor = J(fit$divisor), n = J(fit$n))
lo_g <- loess(dist ~ speed, cars)
lo_s <- loess(dist ~ speed, cars, family = "symmetric")
# family = "symmetric" with one iteration: no robustness step, so R's fit, s and pars$family
# are the gaussian ones (x made distinct: cars$speed + (1:50) / 100)
xs <- cars$speed + (1:50) / 100
one_iter <- lapply(c("interpolate", "direct"), function(surface) {
  f <- loess(cars$dist ~ xs, family = "symmetric", control = loess.control(iterations = 1, surface = surface))
  p <- predict(f, data.frame(xs = c(5, 10, 20)), se = TRUE)
  list(surface = surface, s = J(f$s), enp = J(f$enp), fit = J(p$fit), se = J(p$se.fit), family = f$pars$family)
})

g <- glm(status ~ x, family = binomial, data = d)
pr <- profile(g)

writeLines(toJSON(list(
  versions = list(R = R.version.string, survival = as.character(packageVersion("survival")),
                  prodlim = as.character(packageVersion("prodlim")),
                  cmprsk = as.character(packageVersion("cmprsk")), MASS = as.character(packageVersion("MASS"))),
  data = list(time = J(time), status = J(status), event = J(event), x = J(x)),
  concordancefit = list(names = names(cf), dfbeta = J(cf$dfbeta)),
  prodlim = list(km = pl(km), reverse = pl(rev), competing = pl(cr, TRUE)),
  cuminc = list(names = names(ci), curve_names = names(ci[[1]])),
  loess = list(gaussian = lo(lo_g), symmetric = lo(lo_s), symmetric_one_iteration = one_iter,
               cars = list(speed = J(cars$speed), dist = J(cars$dist))),
  profile_glm = list(class = class(pr), names = names(pr), frame_names = names(pr[[1]]),
                     par_vals_colnames = colnames(pr[[1]]$par.vals))),
  auto_unbox = TRUE, pretty = FALSE, json_verbatim = TRUE), "tests/fixtures/record_names.json")
