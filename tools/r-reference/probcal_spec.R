# cal_dirichlet as docs/spec/r-interface.md §4.3 writes it, in base R: a transcription of the
# algorithm, not R's probcal package (which is not installable here). It lets
# benchmarks/bench_dirichlet.py --r-spec time R's arithmetic for the issue-11 cases on the
# same machine and in the same run as calstats, and check that both give the same numbers.
# Usage: source("tools/r-reference/probcal_spec.R"); fit <- cal_dirichlet(p, y, lambda = NULL)

.clip <- function(p, eps = 1e-15) pmin(pmax(p, eps), 1 - eps)

# The row maximum by max.col, R's C-level idiom, by default: the same values as
# apply(eta, 1, max) for finite input and 40 times faster at 10 classes, so that R is not
# timed on a slow idiom; options(probcal_spec.rowmax = "apply") times the apply() idiom.
.rowmax <- function(eta) {
  if (identical(getOption("probcal_spec.rowmax", "max.col"), "apply")) return(apply(eta, 1, max))
  eta[cbind(seq_len(nrow(eta)), max.col(eta, "first"))]
}

.softmax <- function(eta) {
  e <- exp(eta - .rowmax(eta))
  e / rowSums(e)
}

.mlogloss <- function(P, codes) -mean(log(.clip(P[cbind(seq_along(codes), codes)])))

.fit_multinomial <- function(U, codes, k, lambda) {
  n <- nrow(U)
  Y <- diag(k)[codes, , drop = FALSE]
  off <- row(diag(k)) != col(diag(k))
  eta <- function(par) {
    W <- matrix(par[1:(k * k)], k, k)
    U %*% t(W) + matrix(par[k * k + 1:k], n, k, byrow = TRUE)
  }
  fn <- function(par) {
    v <- .mlogloss(.softmax(eta(par)), codes)
    if (lambda > 0) {
      W <- matrix(par[1:(k * k)], k, k)
      v <- v + lambda * (sum(W[off]^2) + sum(par[k * k + 1:k]^2))
    }
    v
  }
  gr <- function(par) {
    R <- (.softmax(eta(par)) - Y) / n
    gW <- crossprod(R, U)
    gb <- colSums(R)
    if (lambda > 0) {
      gW <- gW + 2 * lambda * matrix(par[1:(k * k)], k, k) * off
      gb <- gb + 2 * lambda * par[k * k + 1:k]
    }
    c(as.vector(gW), gb)
  }
  o <- optim(c(as.vector(diag(k)), rep(0, k)), fn, gr, method = "BFGS", control = list(maxit = 500))
  list(weight = matrix(o$par[1:(k * k)], k, k), bias = o$par[k * k + 1:k], value = o$value,
       counts = o$counts, convergence = o$convergence)
}

cal_dirichlet <- function(p, y, lambda = NULL, eps = 1e-12) {
  k <- ncol(p)
  codes <- as.integer(y)
  U <- log(pmin(pmax(p, eps), 1 - eps))
  if (is.null(lambda)) {
    counts <- table(codes)
    V <- min(3L, min(counts))
    if (V < 2) {
      lambda <- 0.001
    } else {
      folds <- integer(length(codes))
      for (code in sort(unique(codes))) {
        idx <- which(codes == code)
        folds[idx] <- rep_len(seq_len(V), length(idx))
      }
      grid <- c(0, 1e-4, 1e-3, 1e-2, 1e-1)
      scores <- vapply(grid, function(lam) {
        total <- 0
        for (f in seq_len(V)) {
          tr <- folds != f
          fit <- .fit_multinomial(U[tr, , drop = FALSE], codes[tr], k, lam)
          Ut <- U[!tr, , drop = FALSE]
          P <- .softmax(Ut %*% t(fit$weight) + matrix(fit$bias, nrow(Ut), k, byrow = TRUE))
          total <- total + .mlogloss(P, codes[!tr])
        }
        total / V
      }, numeric(1))
      lambda <- grid[which.min(scores)]
    }
  }
  fit <- .fit_multinomial(U, codes, k, lambda)
  fit$lambda <- lambda
  fit
}
