# Calibration of multinomial risk models (Van Hoorde et al. 2014), from VGAM 1.1-7 with
# its default vglm.control (deviance criterion, epsilon 1e-7, maxit 31 for multinomial):
#   intercepts:  vglm(y ~ 1, multinomial(refLevel = r), offset = LP)
#   slopes:      vglm(y ~ lp1 + ..., multinomial(refLevel = r), constraints = list(
#                  "(Intercept)" = diag(M), lp_j = e_j))
#   full:        vglm(y ~ lp1 + ..., multinomial(refLevel = r))
#   flexible:    vglm(y ~ ns(lp1, df) + ..., multinomial(refLevel = r))
# LR tests as Polcal's (pchisq upper), the PDI by enumeration where n is small, and
# nnet::multinom's fit of the full model on the first case.
# Usage: Rscript tools/r-reference/make_multinomial.R > tests/fixtures/multinomial.json
suppressPackageStartupMessages({library(VGAM); library(jsonlite); library(nnet)})

softmax <- function(eta) { e <- exp(eta - apply(eta, 1, max)); e / rowSums(e) }
draw <- function(P) apply(P, 1, function(pr) sample.int(ncol(P), 1, prob = pr))

pdi_enum <- function(P, y) {
  K <- ncol(P)
  idx <- lapply(1:K, function(j) which(y == j))
  tup <- as.matrix(expand.grid(idx))
  comp <- sapply(1:K, function(k) {
    s <- matrix(P[tup, k], ncol = K)   # score p_k of each member of each tuple
    top <- apply(s, 1, max)
    mine <- s[, k]
    mean(ifelse(mine == top, 1 / rowSums(s == top), 0))
  })
  list(pdi = mean(comp), classes = comp)
}

run_case <- function(name, P, y, r, df = 2, enum = FALSE, nnet = FALSE) {
  K <- ncol(P); M <- K - 1; n <- nrow(P)
  keep <- setdiff(1:K, r)
  LP <- log(P[, keep, drop = FALSE] / P[, r])
  d <- data.frame(yf = factor(y, levels = 1:K), LP)
  names(d) <- c("yf", paste0("lp", 1:M))
  fi <- vglm(yf ~ 1, multinomial(refLevel = r), offset = LP, data = d)
  form <- as.formula(paste("yf ~", paste(paste0("lp", 1:M), collapse = " + ")))
  ff <- vglm(form, multinomial(refLevel = r), data = d)
  cl <- c(list("(Intercept)" = diag(M)), lapply(1:M, function(j) diag(M)[, j, drop = FALSE]))
  names(cl) <- c("(Intercept)", paste0("lp", 1:M))
  fs <- vglm(form, multinomial(refLevel = r), constraints = cl, data = d)
  fform <- as.formula(paste("yf ~", paste(sprintf("ns(lp%d, df = %d)", 1:M, df), collapse = " + ")))
  fx <- vglm(fform, multinomial(refLevel = r), data = d)
  d0 <- -2 * sum(log(P[cbind(1:n, y)]))
  # Polcal's own calls: vgam() without smooth terms (its stopping rule differs from vglm's)
  gi <- vgam(yf ~ 1, multinomial(refLevel = r), offset = LP, data = d)
  gs <- vgam(form, multinomial(refLevel = r), constraints = cl, data = d)
  mu <- fitted(fx)
  out <- list(
    name = name, P = unname(P), y = y, ref = r, df = df,
    intercepts = unname(coef(fi)), intercepts_se = unname(sqrt(diag(vcov(fi)))),
    slopes = unname(coef(fs)), slopes_se = unname(sqrt(diag(vcov(fs)))),
    full = unname(coef(ff)), full_se = unname(sqrt(diag(vcov(ff)))),
    polcal_intercepts = unname(coef(gi)), polcal_intercepts_se = unname(sqrt(diag(vcov(gi)))),
    polcal_slopes = unname(coef(gs)), polcal_slopes_se = unname(sqrt(diag(vcov(gs)))),
    polcal_iter = c(gi@iter, gs@iter),
    dev = c(original = d0, intercepts = deviance(fi), slopes = deviance(fs),
            full = deviance(ff), flexible = deviance(fx)),
    iter = c(fi@iter, fs@iter, ff@iter, fx@iter),
    p_overall = pchisq(d0 - deviance(fs), 2 * M, lower.tail = FALSE),
    p_int = pchisq(d0 - deviance(fi), M, lower.tail = FALSE),
    p_slopes = pchisq(deviance(fi) - deviance(fs), M, lower.tail = FALSE),
    p_recal = pchisq(d0 - deviance(ff), M + M^2, lower.tail = FALSE),
    mu_rows = rows <- unique(round(seq(1, n, length.out = min(n, 60)))),
    flexible_mu = unname(mu[rows, , drop = FALSE]),
    eci = mean((P - mu)^2) * 100)
  if (enum) { e <- pdi_enum(P, y); out$pdi <- e$pdi; out$pdi_classes <- e$classes }
  if (nnet) {
    mm <- multinom(form, data = transform(d, yf = relevel(yf, ref = r)), trace = FALSE)
    out$nnet_coef <- unname(coef(mm))   # rows equations (classes other than r), cols terms
    out$nnet_deviance <- deviance(mm)
  }
  out
}

cases <- list()
# K = 3, n = 200, reasonably calibrated
set.seed(101); n <- 200
X <- cbind(rnorm(n), rnorm(n))
eta <- cbind(0, 0.3 + X[, 1], -0.2 + 0.8 * X[, 2])
P <- softmax(eta); y <- draw(softmax(eta * 0.9 + 0.1))
cases[[length(cases) + 1]] <- run_case("k3_n200", P, y, 1, nnet = TRUE)
# K = 4, n = 500, overconfident predictions (lp * 1.5)
set.seed(202); n <- 500
X <- matrix(rnorm(n * 3), n)
eta <- cbind(0, 0.2 + X[, 1], -0.3 + 0.7 * X[, 2], 0.1 + 0.5 * X[, 3] - 0.4 * X[, 1])
y <- draw(softmax(eta)); P <- softmax(1.5 * eta)
cases[[length(cases) + 1]] <- run_case("k4_overconfident", P, y, 1)
# K = 5, n = 2000, near-perfect calibration
set.seed(303); n <- 2000
X <- matrix(rnorm(n * 4), n)
eta <- cbind(0, X %*% matrix(c(0.8, 0.2, 0, 0.1, -0.3, 0.9, 0.2, 0, 0.1, 0, 0.7, 0.3, 0, 0.2, 0.1, 0.6), 4))
P <- softmax(eta); y <- draw(P)
cases[[length(cases) + 1]] <- run_case("k5_n2000_calibrated", P, y, 1)
# K = 3: class 3 is never the highest prediction
set.seed(404); n <- 300
X <- cbind(rnorm(n), rnorm(n))
eta <- cbind(0, X[, 1], -2.5 + 0.3 * X[, 2])
P <- softmax(eta); stopifnot(all(max.col(P) != 3)); y <- draw(softmax(eta + matrix(c(0, 0, 1), n, 3, byrow = TRUE)))
cases[[length(cases) + 1]] <- run_case("k3_never_top", P, y, 1)
# K = 4, reference class 2, n = 400, df = 3
set.seed(505); n <- 400
X <- matrix(rnorm(n * 3), n)
eta <- cbind(0, 0.5 * X[, 1], -0.4 + 0.9 * X[, 2], 0.3 + 0.6 * X[, 3])
P <- softmax(eta); y <- draw(softmax(0.7 * eta))
cases[[length(cases) + 1]] <- run_case("k4_ref2_df3", P, y, 2, df = 3)
# K = 3, named columns (the Python test names them "low", "mid", "high"), ref = "mid"
set.seed(606); n <- 150
X <- cbind(rnorm(n), rnorm(n))
eta <- cbind(0, 0.4 + X[, 1], X[, 2] - 0.5)
P <- softmax(eta); y <- draw(P)
cases[[length(cases) + 1]] <- run_case("k3_named", P, y, 2)
# K = 3, n = 50 (PDI by enumeration)
set.seed(707); n <- 50
X <- cbind(rnorm(n), rnorm(n))
eta <- cbind(0, 1.2 * X[, 1], 1.2 * X[, 2])
P <- softmax(eta); y <- draw(P)
cases[[length(cases) + 1]] <- run_case("k3_n50", P, y, 1, enum = TRUE)
# tiny n = 30, K = 3, probabilities rounded to 2 decimals (ties for the PDI)
set.seed(808); n <- 30
X <- cbind(rnorm(n), rnorm(n))
eta <- cbind(0, 0.8 * X[, 1], 0.8 * X[, 2])
P <- round(softmax(eta), 2); P[, 3] <- 1 - P[, 1] - P[, 2]; y <- draw(softmax(eta))
cases[[length(cases) + 1]] <- run_case("k3_tiny", P, y, 1, enum = TRUE)
# K = 4, n = 80 (PDI by enumeration)
set.seed(909); n <- 80
X <- matrix(rnorm(n * 3), n)
eta <- cbind(0, X)
P <- softmax(eta); y <- draw(softmax(1.3 * eta))
cases[[length(cases) + 1]] <- run_case("k4_n80", P, y, 1, enum = TRUE)# K = 3, extreme predictions (some p below sqrt(.Machine$double.eps), fitted values too)
set.seed(1010); n <- 120
X <- cbind(rnorm(n), rnorm(n))
eta <- cbind(0, 2 * X[, 1], 2 * X[, 2])
y <- draw(softmax(eta)); P <- softmax(6 * eta)
cases[[length(cases) + 1]] <- run_case("k3_extreme", P, y, 1)

# jsonlite writes at most 15 significant digits; every double goes out as "%.17g" so
# that the inputs (P) and the references reach Python bit for bit.
num17 <- function(v) sprintf("%.17g", v)
exact <- function(x) {
  if (is.list(x)) return(lapply(x, exact))
  if (!is.double(x)) return(x)
  if (is.matrix(x)) {
    rows <- apply(x, 1, function(r) paste0("[", paste(num17(r), collapse = ","), "]"))
    return(structure(paste0("[", paste(rows, collapse = ","), "]"), class = "json"))
  }
  if (length(x) == 1) return(structure(num17(x), class = "json"))
  structure(paste0("[", paste(num17(x), collapse = ","), "]"), class = "json")
}
cat(toJSON(list(meta = list(VGAM = as.character(packageVersion("VGAM")), R = R.version.string),
                cases = exact(lapply(cases, function(cs) { cs$dev <- unname(cs$dev); cs }))),
           auto_unbox = TRUE, json_verbatim = TRUE))
