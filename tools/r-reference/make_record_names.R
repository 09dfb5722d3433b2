# Reference names (and the values of the fields the older fixtures do not hold) of the R
# objects whose calstats ports are RObjects with R's field names in R's order:
# survival:::concordancefit(influence = 3), prodlim::prodlim (survival, reverse, competing
# risks), one curve of cmprsk::cuminc, stats::loess (gaussian and symmetric) and
# MASS's profile.glm (-> tests/fixtures/record_names.json); then rms::lrm.fit (with and
# without weights, and with an offset only), rms::fastbw, rms::predab.resample's matrix
# (through validate.lrm), VGAM's vglm slots, stats::isoreg, the attributes of splines::bs and
# ns, and mgcv's smooth objects (smoothCon(absorb.cons = TRUE, scale.penalty = TRUE) for
# bs = "tp" and "cr") (-> tests/fixtures/fit_records.json). Run from the repository root:
#   Rscript tools/r-reference/make_record_names.R
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

# rms, VGAM, stats::isoreg, splines and mgcv (their own data; loaded here so that nothing
# above runs with their masks)
local({
  suppressPackageStartupMessages({library(rms); library(VGAM); library(mgcv); library(splines);
    library(jsonlite)})
  stopifnot(packageVersion("rms") == "6.5.0", packageVersion("VGAM") == "1.1.7",
            packageVersion("mgcv") == "1.8.41")
  set.seed(20240607)
  n <- 60
  x1 <- round(rnorm(n), 3)
  x2 <- round(rnorm(n), 3)
  x3 <- round(runif(n), 3)
  y <- rbinom(n, 1, plogis(0.3 + 1.2 * x1))
  y3 <- sample(0:2, n, replace = TRUE)
  w <- round(runif(n, 0.5, 2), 2)
  d <- data.frame(x1 = x1, x2 = x2, x3 = x3, y = y, y3 = factor(y3))

  lf <- lrm.fit(cbind(x1, x2), y)
  lw <- lrm.fit(cbind(x1, x2), y, weights = w)
  lo <- lrm.fit(offset = x1, y = y)

  fit <- lrm(y ~ x1 + x2 + x3, data = d, x = TRUE, y = TRUE)
  bw <- fastbw(fit)
  set.seed(1)
  val <- rms::validate(fit, B = 5)

  vg <- vglm(y3 ~ x1, multinomial(refLevel = 1), data = d)

  iso <- isoreg(c(1, 0, 1, 0, 1, 1, 0, 1))

  spl <- function(b) list(attributes = names(attributes(b)), degree = attr(b, "degree"), knots = J(attr(b, "knots")),
                          Boundary.knots = J(attr(b, "Boundary.knots")), intercept = attr(b, "intercept"))

  sm <- function(bs) {
    s <- smoothCon(s(x3, bs = bs, k = 6), data = d, absorb.cons = TRUE, scale.penalty = TRUE)[[1]]
    out <- list(names = names(s), attributes = names(attributes(s)), bs.dim = s$bs.dim,
                null.space.dim = s$null.space.dim, S.scale = J(s$S.scale),
                qraux = J(attr(s, "qrc")$qraux), qr = J(attr(s, "qrc")$qr),
                F_is_matrix = is.matrix(s$F), X = J(s$X), dimX = dim(s$X))
    if (bs == "tp") {
      out$shift <- J(s$shift)
      out$Xu <- J(s$Xu)
    } else {
      out$xp <- J(s$xp)
      out$F <- J(s$F)
    }
    out
  }

  writeLines(toJSON(list(
    versions = list(R = R.version.string, rms = as.character(packageVersion("rms")),
                    VGAM = as.character(packageVersion("VGAM")), mgcv = as.character(packageVersion("mgcv"))),
    data = list(x1 = J(x1), x2 = J(x2), x3 = J(x3), y = J(y), y3 = J(y3), w = J(w)),
    lrm_fit = list(names = names(lf), weighted_names = names(lw), freq = J(lf$freq), sumwty = J(lw$sumwty),
                   non.slopes = lf$non.slopes, deviance = J(lf$deviance), coefficients = J(lf$coefficients)),
    lrm_fit_offset = list(names = names(lo), coefficients = J(lo$coefficients), var = J(lo$var),
                          deviance = J(lo$deviance)),
    fastbw = list(names = names(bw), names.kept = bw$names.kept, factors.kept = J(bw$factors.kept),
                  factors.deleted = J(bw$factors.deleted), parms.kept = J(bw$parms.kept)),
    predab = list(colnames = colnames(val)),
    vglm = list(slots = slotNames(vg), iter = vg@iter, coefficients = J(coef(vg)),
                dim_predictors = dim(vg@predictors), dim_fitted = dim(vg@fitted.values)),
    isoreg = list(names = names(iso), yf = J(iso$yf), yc = J(iso$yc), iKnots = J(iso$iKnots)),
    splines = list(bs = spl(bs(x3, df = 5)), ns = spl(ns(x3, df = 4, intercept = TRUE))),
    smooth = list(tp = sm("tp"), cr = sm("cr"))),
    auto_unbox = TRUE, pretty = FALSE, json_verbatim = TRUE), "tests/fixtures/fit_records.json")
})
