#!/usr/bin/env Rscript
# R references for case weights (calstats' weights=, issue 15), written with base R only:
#   * Platt and beta calibration: glm(..., family = binomial, weights = w), the targets of
#     Platt from weighted class counts (what replicating rows would give);
#   * binary temperature: optimize() on the weighted summed log-loss;
#   * multiclass temperature: optimize() on the weighted mean log-loss;
#   * vector scaling and Dirichlet calibration (ODIR, fixed lambda): optim(method = "BFGS",
#     maxit = 500) on the weighted mean log-likelihood sum(w * l) / sum(w) plus probcal's
#     penalty, with its analytic gradient;
#   * isotonic calibration: isoreg() on the rows replicated by integer weights.
# Inputs are generated here with set.seed and stored at full precision.
#
# Writes tests/fixtures/weights.json (run from the repository root):
#   Rscript tools/r-reference/make_weights.R
library(jsonlite)

J <- function(x) {
  x <- as.numeric(unname(x))
  s <- sprintf("%.17g", x)
  s[is.na(x)] <- '"NA"'
  structure(paste0("[", paste(s, collapse = ","), "]"), class = "json")
}
M <- function(m) lapply(seq_len(nrow(m)), function(i) J(m[i, ]))

cases <- list()
add <- function(case) cases[[length(cases) + 1]] <<- case

clip <- function(p, eps = 1e-15) pmin(pmax(p, eps), 1 - eps)

softmax <- function(eta) {
  e <- exp(eta - apply(eta, 1, max))
  e / rowSums(e)
}

binary_data <- function(seed, n) {
  set.seed(seed)
  x <- rnorm(n) * 1.5
  y <- as.integer(runif(n) < plogis(0.7 * x - 0.2))
  w <- sample(0:3, n, replace = TRUE)
  w[1] <- 2.5  # one non-integer weight
  list(x = x, y = y, w = w)
}

multi_data <- function(seed, n, k) {
  set.seed(seed)
  z <- matrix(rnorm(n * k) * 1.5, n, k)
  P <- softmax(z)
  y <- apply(P, 1, function(p) sample.int(k, 1, prob = p))
  w <- runif(n, 0, 3)
  w[sample.int(n, 5)] <- 0
  list(z = z, P = P, y = y, w = w)
}

for (seed in 1:3) {
  d <- binary_data(seed, 150)
  x <- d$x; y <- d$y; w <- d$w
  newx <- seq(-4, 4, length.out = 9)
  # Platt: targets from weighted counts
  n_pos <- sum(w[y == 1]); n_neg <- sum(w[y == 0])
  t <- ifelse(y == 1, (n_pos + 1) / (n_pos + 2), 1 / (n_neg + 2))
  fit <- suppressWarnings(glm(t ~ x, family = binomial(), weights = w))
  add(list(id = sprintf("platt_%d", seed), fn = "cal_platt", x = J(x), y = J(y), weights = J(w),
           newdata = J(newx), coefficients = J(coef(fit)),
           predict = J(plogis(coef(fit)[1] + coef(fit)[2] * newx))))
  # beta: glm(y ~ log(p) + log1p(-p)) with weights
  p <- clip(plogis(x))
  fit <- suppressWarnings(glm(y ~ log(p) + log1p(-p), family = binomial(), weights = w))
  newp <- seq(0.05, 0.95, length.out = 9)
  cf <- coef(fit)
  add(list(id = sprintf("beta_%d", seed), fn = "cal_beta", p = J(plogis(x)), y = J(y), weights = J(w),
           newdata = J(newp), coefficients = J(cf),
           predict = J(plogis(cf[1] + cf[2] * log(newp) + cf[3] * log1p(-newp)))))
  # binary temperature: the weighted summed log-loss
  f <- function(temp) {
    q <- clip(plogis(x / temp))
    -sum(w * (y * log(q) + (1 - y) * log1p(-q)))
  }
  o <- optimize(f, c(1e-3, 1e3), tol = sqrt(.Machine$double.eps))
  add(list(id = sprintf("temperature_binary_%d", seed), fn = "cal_temperature", logits = J(x), y = J(y),
           weights = J(w), temperature = J(o$minimum), value = J(f(o$minimum))))
  # isotonic on replicated rows (integer weights only)
  wi <- pmax(round(w), 0)
  r <- rep(seq_along(x), wi)
  pr <- plogis(x)[r]; yr <- y[r]
  ord <- order(pr, -yr)
  iso <- isoreg(pr[ord], yr[ord])
  yf <- pmin(pmax(iso$yf, 0), 1)
  xs <- pr[ord]
  thr <- unique(xs)
  ycal <- tapply(yf, match(xs, thr), mean)
  newp <- seq(0.02, 0.98, length.out = 25)
  pred <- approx(thr, as.numeric(ycal), xout = newp, method = "constant", rule = 2, ties = "ordered")$y
  add(list(id = sprintf("isotonic_%d", seed), fn = "cal_isotonic", p = J(plogis(x)), y = J(y), weights = J(wi),
           newdata = J(newp), x_thresholds = J(thr), y_calibrated = J(as.numeric(ycal))))
}

for (seed in 1:2) {
  k <- 3 + seed
  d <- multi_data(10 + seed, 120, k)
  z <- d$z; y <- d$y; w <- d$w; n <- nrow(z)
  Y <- diag(k)[y, ]
  sw <- sum(w)
  # multiclass temperature
  f <- function(temp) {
    P <- softmax(z / temp)
    -sum(w * log(clip(P[cbind(1:n, y)]))) / sw
  }
  o <- optimize(f, c(1e-3, 1e3), tol = sqrt(.Machine$double.eps))
  add(list(id = sprintf("temperature_multi_%d", seed), fn = "cal_temperature", logits = M(z), y = J(y),
           weights = J(w), temperature = J(o$minimum), value = J(f(o$minimum))))
  # vector scaling
  fn <- function(par) {
    P <- softmax(sweep(z, 2, par[1:k], "*") + matrix(par[k + 1:k], n, k, byrow = TRUE))
    -sum(w * log(clip(P[cbind(1:n, y)]))) / sw
  }
  gr <- function(par) {
    P <- softmax(sweep(z, 2, par[1:k], "*") + matrix(par[k + 1:k], n, k, byrow = TRUE))
    R <- (P - Y) * (w / sw)
    c(colSums(R * z), colSums(R))
  }
  o <- optim(c(rep(1, k), rep(0, k)), fn, gr, method = "BFGS", control = list(maxit = 500))
  add(list(id = sprintf("vector_%d", seed), fn = "cal_vector_scaling", logits = M(z), y = J(y), weights = J(w),
           scale = J(o$par[1:k]), bias = J(o$par[k + 1:k]), value = J(o$value),
           counts = J(o$counts), convergence = o$convergence))
  # Dirichlet calibration (ODIR), fixed lambda
  lambda <- 0.01
  U <- log(pmin(pmax(d$P, 1e-12), 1 - 1e-12))
  off <- row(diag(k)) != col(diag(k))
  fn <- function(par) {
    W <- matrix(par[1:(k * k)], k, k); b <- par[k * k + 1:k]
    P <- softmax(U %*% t(W) + matrix(b, n, k, byrow = TRUE))
    -sum(w * log(clip(P[cbind(1:n, y)]))) / sw + lambda * (sum(W[off]^2) + sum(b^2))
  }
  gr <- function(par) {
    W <- matrix(par[1:(k * k)], k, k); b <- par[k * k + 1:k]
    P <- softmax(U %*% t(W) + matrix(b, n, k, byrow = TRUE))
    R <- (P - Y) * (w / sw)
    gW <- crossprod(R, U) + 2 * lambda * W * off
    c(as.vector(gW), colSums(R) + 2 * lambda * b)
  }
  o <- optim(c(as.vector(diag(k)), rep(0, k)), fn, gr, method = "BFGS", control = list(maxit = 500))
  add(list(id = sprintf("dirichlet_%d", seed), fn = "cal_dirichlet", p = M(d$P), y = J(y), weights = J(w),
           lambda = lambda, weight = M(matrix(o$par[1:(k * k)], k, k)), bias = J(o$par[k * k + 1:k]),
           value = J(o$value), counts = J(o$counts), convergence = o$convergence))
}

out <- list(generator = "tools/r-reference/make_weights.R", r_version = R.version.string, cases = cases)
writeLines(toJSON(out, auto_unbox = TRUE, digits = NA, json_verbatim = TRUE, pretty = FALSE),
           "tests/fixtures/weights.json")
cat(sprintf("wrote %d cases to tests/fixtures/weights.json\n", length(cases)))
