#!/usr/bin/env Rscript
# The examples of reliabilitydiag's own man pages (reliabilitydiag 0.2.1.9000, its source in
# ../shared/r-reference/reliabilitydiag_0.2.1.9000-src.tar.gz), for every part calstats has
# a function for (calstats.corp: one forecast per call, summary() as decomposition()):
#   reliabilitydiag.Rd    r <- reliabilitydiag(precip_Niamey_2016["EMOS"], y = obs); r
#                         r1 <- reliabilitydiag(X = X, y = Y, region.level = NA); r1
#                         r2 <- reliabilitydiag(X2 = ENS, r = r, region.level = NA)
#   c.reliabilitydiag.Rd  c(r0, EMOS, ENS, EPC = ..., region.level = NA), + Logistic
#   plot.reliabilitydiag.Rd  the four forecasts without band; rr <- reliabilitydiag(EMOS =
#                         ..., r = r, region.level = 0.9) (its band; the plots themselves
#                         and the discrimination diagrams are not compared)
#   sub-.reliabilitydiag.Rd  r <- reliabilitydiag(precip[c("Logistic", "EMOS")], y = obs);
#                         r[1], r["EMOS"]
#   summary.reliabilitydiag.Rd  summary(r) and summary(r, score = function(y, x) (x - y)^2)
# Where an example draws a resampling band (R's default for these 92 cases) it runs after
# set.seed(<seed recorded here>), so that the band is reproducible; the man pages set none.
# The printed summaries (tibble 3.1.8, pillar 1.8.1, UTF-8, width 80) are kept line by line,
# and so is the print of a battery of numeric columns (pillar's decimal and scientific
# notation), for calstats.numerics.pillar.
#
# Writes tests/fixtures/reliabilitydiag_examples.json (run from the repository root):
#   Rscript tools/r-reference/make_reliabilitydiag_examples.R
suppressPackageStartupMessages({
  library(jsonlite)
  library(reliabilitydiag)
  library(tibble)
})
source("tools/r-reference/fixture_json.R")
options(width = 80)

data("precip_Niamey_2016", package = "reliabilitydiag")
D <- precip_Niamey_2016
Y <- D$obs

printed <- function(x) capture.output(print(x))
summ <- function(s) list(forecast = s$forecast, mean_score = json_num_str(s$mean_score),
                         miscalibration = json_num_str(s$miscalibration),
                         discrimination = json_num_str(s$discrimination),
                         uncertainty = json_num_str(s$uncertainty))
band <- function(d) list(x = json_num_str(d$regions$x), lower = json_num_str(d$regions$lower),
                         upper = json_num_str(d$regions$upper), method = d$regions$method[1],
                         level = d$regions$level[1], position = d$regions$position[1])

ex <- list()
# reliabilitydiag.Rd
set.seed(1)
r <- reliabilitydiag(D["EMOS"], y = Y)
ex$rd_emos <- list(seed = 1L, forecast = "EMOS", band = band(r$EMOS), summary = summ(summary(r)),
                   print = printed(summary(r)))
X <- D$EMOS
r1 <- reliabilitydiag(X = X, y = Y, region.level = NA)
ex$rd_x <- list(forecast = "X", summary = summ(summary(r1)), print = printed(summary(r1)),
                regions_rows = nrow(r1$X$regions))
r2 <- reliabilitydiag(X2 = D$ENS, r = r, region.level = NA)
ex$rd_x2 <- list(forecast = "X2", summary = summ(summary(r2)), print = printed(summary(r2)))

# c.reliabilitydiag.Rd
r0 <- reliabilitydiag0(Y)
rc <- c(r0, D[c("EMOS", "ENS")], EPC = D$EPC, region.level = NA)
rc2 <- c(rc, reliabilitydiag(Logistic = D$Logistic, y = Y))
ex$c_combined <- list(summary = summ(summary(rc)), print = printed(summary(rc)),
                      summary_all = summ(summary(rc2)), print_all = printed(summary(rc2)))

# plot.reliabilitydiag.Rd
rp <- reliabilitydiag(D[c("Logistic", "EMOS", "ENS", "EPC")], y = Y, region.level = NA)
set.seed(2)
rr <- reliabilitydiag(EMOS = D$EMOS, r = rp, region.level = 0.9)
ex$plot_rr <- list(seed = 2L, forecast = "EMOS", band = band(rr$EMOS), print = printed(summary(rr)))
ex$plot_bins <- lapply(c("Logistic", "EMOS", "ENS", "EPC"), function(f) {
  b <- rp[[f]]$bins
  list(forecast = f, n = json_num_str(b$n), x_min = json_num_str(b$x_min), x_max = json_num_str(b$x_max),
       CEP_pav = json_num_str(b$CEP_pav), xtype = rp[[f]]$xinfo$type)
})

# sub-.reliabilitydiag.Rd (one stream: Logistic's band, then EMOS's)
set.seed(3)
rs <- reliabilitydiag(D[c("Logistic", "EMOS")], y = Y)
ex$sub <- list(seed = 3L, length = length(rs), logistic_band = band(rs$Logistic), emos_band = band(rs$EMOS),
               print_1 = printed(summary(rs[1])), print_emos = printed(summary(rs["EMOS"])))

# summary.reliabilitydiag.Rd
ex$summary <- list(brier = summ(summary(rp)), print = printed(summary(rp)),
                   user = summ(summary(rp, score = function(y, x) (x - y)^2)),
                   print_user = printed(summary(rp, score = function(y, x) (x - y)^2)))

# pillar's numeric columns
set.seed(4)
vals <- list(
  c(0.25, 0.125, 1.5, -2.78e-17, 1234.5, NA, Inf, 0, 1e-5, 0.0171, 100, 3),
  c(0.206, 0.232, 0.266, 0.234), c(0.0171, 0.0183, 0.0661, 0.0223), 0.25, c(0.125, 0.25),
  c(1e-17, 2e-17), c(123456789.123, 1), c(-0.5, 0.5, 0.05), c(0.1, 0.2, 0.3), c(1 / 3, 2 / 3, 1),
  c(-1e-300, 5), c(NaN, 1, -Inf), c(0.9995, 0.00049999), c(99.95, 9.995, 0.9995), c(1e15, 1),
  c(2.5e-8, -3.5e-9), c(0.001, 0.0001), c(0, 0), c(-0.0171, 0.5), c(7, 12, 130))
for (i in 1:40) {
  vals[[length(vals) + 1]] <- signif(runif(sample(1:5, 1)) * 10^sample(-7:7, 1), sample(1:7, 1)) *
    sample(c(-1, 1), 1)
}
vals[[length(vals) + 1]] <- (1:23) / 7
pillar_cases <- lapply(vals, function(v) {
  t <- tibble(forecast = paste0("f", seq_along(v)), value = v)
  list(values = json_num_str(v), print = printed(t))
})

out <- list(generator = "tools/r-reference/make_reliabilitydiag_examples.R", r_version = R.version.string,
            reliabilitydiag = as.character(packageVersion("reliabilitydiag")),
            tibble = as.character(packageVersion("tibble")), pillar = as.character(packageVersion("pillar")),
            data = list(obs = json_num_str(Y), Logistic = json_num_str(D$Logistic), EMOS = json_num_str(D$EMOS),
                        ENS = json_num_str(D$ENS), EPC = json_num_str(D$EPC)),
            examples = ex, pillar_cases = pillar_cases)
writeLines(toJSON(out, auto_unbox = TRUE, digits = NA, json_verbatim = TRUE, pretty = FALSE),
           "tests/fixtures/reliabilitydiag_examples.json")
cat("wrote tests/fixtures/reliabilitydiag_examples.json\n")
