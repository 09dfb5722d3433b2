# Reference values for the fields of calstats.ports.mgcv's fit records that the older mgcv
# fixtures do not hold: fit$edf (per coefficient) and fit$method, for every case of
# tests/fixtures/gam.json (binomial) and tests/fixtures/gam_cox.json (cox.ph), refitted from
# the inputs those fixtures store (so R and calstats fit the same numbers).
# Run from the repository root (after make_gam.R and make_gam_cox.R):
#   Rscript tools/r-reference/make_gam_edf.R
# Writes tests/fixtures/gam_edf.json.
suppressPackageStartupMessages({library(mgcv); library(jsonlite)})
stopifnot(packageVersion("mgcv") == "1.8.41")
source("tools/r-reference/fixture_json.R")
J <- json_num_null

num <- function(v) as.numeric(unlist(lapply(v, function(e) if (is.null(e)) NA else e)))

bin <- fromJSON("tests/fixtures/gam.json", simplifyVector = FALSE)$cases
out_bin <- list()
for (c in bin) {
  d <- data.frame(x = num(c$x), y = num(c$y))
  k <- c$k; bs <- c$bs; fx <- c$fx
  fit <- suppressWarnings(gam(y ~ s(x, k = k, fx = fx, bs = bs), family = binomial(link = "logit"),
                              data = d, method = c$method))
  out_bin[[c$name]] <- list(edf = J(fit$edf), edf_sum = J(sum(fit$edf)), method = fit$method,
                            gcv_ubre_name = names(fit$gcv.ubre))
}

cox <- fromJSON("tests/fixtures/gam_cox.json", simplifyVector = FALSE)
out_cox <- list()
for (name in names(cox)) {
  c <- cox[[name]]
  d <- data.frame(times = num(c$time), events = num(c$status), x = num(c$x))
  k <- c$k; bs <- c$bs; fx <- c$fx
  fit <- gam(times ~ s(x, k = k, fx = fx, bs = bs), data = d, family = cox.ph(),
             weights = events, method = c$method)
  out_cox[[name]] <- list(edf = J(fit$edf), edf_sum = J(sum(fit$edf)), method = fit$method)
}

writeLines(toJSON(list(mgcv = as.character(packageVersion("mgcv")), binomial = out_bin, cox_ph = out_cox),
                  auto_unbox = TRUE, pretty = FALSE, json_verbatim = TRUE),
           "tests/fixtures/gam_edf.json")
