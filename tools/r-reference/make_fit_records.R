# Reference names (and a few values) of the R objects whose calstats ports are RObjects with
# R's field names in R's order: rms::lrm.fit (with and without weights, and with an offset
# only), rms::fastbw, rms::predab.resample's matrix (through validate.lrm), VGAM's vglm slots,
# stats::isoreg, the attributes of splines::bs and ns, and mgcv's smooth objects (smoothCon(absorb.cons = TRUE, scale.penalty = TRUE)
# for bs = "tp" and "cr"). Run from the repository root:
#   Rscript tools/r-reference/make_fit_records.R
# Writes tests/fixtures/fit_records.json.
suppressPackageStartupMessages({library(rms); library(VGAM); library(mgcv); library(splines);
  library(jsonlite)})
stopifnot(packageVersion("rms") == "6.5.0", packageVersion("VGAM") == "1.1.7",
          packageVersion("mgcv") == "1.8.41")
source("tools/r-reference/fixture_json.R")
J <- json_num_null

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
