#!/usr/bin/env Rscript
# VGAM 1.1-7's step control in vglm.fit, on small multinomial data sets where it matters:
# the flexible model of val_multinomial (vglm(y ~ ns(lp1, df = 2) + ..., multinomial)) on
# n = 40-80 rows with K = 4-5 classes, where fitted probabilities reach exactly 0 or 1
# (multinomial()@validparams fails, so vglm.fit takes a modified step although the
# deviance fell) and the iteration ends in "half-step sizes are very small". Recorded:
# the design (the ns basis with its intercept), the classes, coefficients, iterations,
# deviance and the warnings, for calstats.ports.vgam.vglm.
#
# Writes tests/fixtures/vglm_steps.json (run from the repository root):
#   Rscript tools/r-reference/make_vglm_steps.R
suppressPackageStartupMessages({library(VGAM); library(jsonlite); library(splines)})
source("tools/r-reference/fixture_json.R")

cases <- list()
set.seed(20261128)
for (i in 1:12) {
  n <- sample(c(40, 60, 80), 1); K <- sample(4:5, 1); M <- K - 1
  z <- matrix(rnorm(n * K), n, K) * runif(1, 1, 2.5)
  P <- exp(z) / rowSums(exp(z))
  Q <- exp(0.8 * z) / rowSums(exp(0.8 * z))
  y <- apply(Q, 1, function(q) sample.int(K, 1, prob = q))
  if (length(unique(y)) < K) next
  LP <- log(P[, -1, drop = FALSE] / P[, 1])
  X <- cbind(1, do.call(cbind, lapply(1:M, function(j) ns(LP[, j], df = 2))))
  d <- data.frame(yf = factor(y, levels = 1:K), X[, -1])
  fit <- capture_all(vglm(yf ~ ., multinomial(refLevel = 1), data = d))
  f <- fit$value
  cases[[length(cases) + 1]] <- list(
    id = sprintf("steps_%02d", i), K = K, x = lapply(seq_len(n), function(r) json_num_null(X[r, ])), y = y,
    coef = json_num_null(coef(f)), iter = f@iter, deviance = json_num_null(deviance(f)),
    warnings = unique(fit$warnings))
}
out <- list(generator = "tools/r-reference/make_vglm_steps.R", r_version = R.version.string,
            VGAM = as.character(packageVersion("VGAM")), cases = cases)
writeLines(toJSON(out, auto_unbox = TRUE, digits = NA, json_verbatim = TRUE, pretty = FALSE),
           "tests/fixtures/vglm_steps.json")
cat(sprintf("wrote %d cases to tests/fixtures/vglm_steps.json\n", length(cases)))
