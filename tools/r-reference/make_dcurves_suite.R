#!/usr/bin/env Rscript
# dcurves' own test suite (tests/testthat/*.R) and man-page examples (man/*.Rd), dcurves
# 0.5.1.9000 (github.com/ddsjoberg/dcurves, the snapshot of 2025-11-14), for every part
# calstats has a function for (calstats.clinical.decision_curve, net_intervention_avoided,
# test_consequences):
#   test-dca.R            the seven dca() calls of "dca() works" (binary; as_probability
#                         with glm and with coxph; thresholds = 0; Surv at time 1;
#                         case-control prevalence; Surv(time, factor) competing risks) and
#                         the twelve calls of "dca() errors print with bad inputs"
#   test-net_intervention_avoided.R, test-standardize_net_benefit.R, test-as_tibble.R,
#   test-test_consequences.R, test-plot.R (the two error cases of plot(type =))
#   dca.Rd, net_intervention_avoided.Rd (nper = 100), standardized_net_benefit.Rd,
#   as_tibble.dca.Rd, print.dca.Rd (its message), test_consequences.Rd
# and a few probes of the same functions where calstats has a branch (harm as a list,
# thresholds 0 and 1, test_consequences on a Surv outcome and with a prevalence, net
# interventions avoided with harm, as_probability on Surv with the risk 1 - exp(-H)).
# Each dca() case keeps the whole as_tibble() (every threshold and column), the object's
# n, prevalence and time, and for as_probability the converted risks
# (dcurves:::.convert_to_risk, glm or coxph + predict(type = "expected")).
# The printed tibbles (tibble 3.1.8, pillar 1.8.1, width 80) are kept for reference, and
# test_consequences()' table printed as a data frame (print(as.data.frame(x)), width 80),
# which calstats prints.
#
# dcurves is not a Debian package: install it from its sources into a library of its own
# (R CMD INSTALL -l /path/to/lib dcurves; its dependencies are Debian packages) and run
#   DCURVES_LIB=/path/to/lib Rscript tools/r-reference/make_dcurves_suite.R
# from the repository root. Writes tests/fixtures/dcurves_suite.json.
lib <- Sys.getenv("DCURVES_LIB", "/work/rlib-h3")
.libPaths(c(lib, .libPaths()))
suppressPackageStartupMessages({
  library(dcurves)
  library(survival)
  library(jsonlite)
  library(dplyr)
})
source("tools/r-reference/fixture_json.R")
options(width = 80)
stopifnot(packageVersion("dcurves") == "0.5.1.9000", packageVersion("survival") == "3.5.3")

N <- json_num_str
err <- function(expr) tryCatch({ force(expr); NULL }, error = function(e) conditionMessage(e))

data_of <- function(df) {
  out <- list()
  for (v in names(df)) {
    x <- df[[v]]
    if (is.factor(x)) out[[v]] <- list(levels = levels(x), codes = N(as.integer(x) - 1L))
    else if (is.character(x)) out[[v]] <- x
    else out[[v]] <- N(as.numeric(x))
  }
  out
}

tibble_of <- function(tb) {
  out <- list()
  for (v in names(tb)) {
    x <- tb[[v]]
    out[[v]] <- if (is.factor(x) || is.character(x)) as.character(x) else N(x)
  }
  out
}

# One dca() case: `spec` tells the Python side what to call; `expr` is the R call.
cases <- list()
add_case <- function(id, source, code, spec, expr, post = identity) {
  run <- capture_all(post(expr))
  x <- run$value
  cases[[length(cases) + 1]] <<- list(
    id = id, source = source, r = code, spec = spec, names = names(x), n = N(x$n),
    prevalence = N(x$prevalence), time = if (is.null(x$time)) NULL else N(x$time),
    nper = if (is.null(x$net_interventions_nper)) NULL else N(x$net_interventions_nper),
    messages = run$messages, table = tibble_of(as_tibble(x)),
    printed = capture.output(print(as_tibble(x))))
}

thr_default <- seq(0, 0.99, by = 0.01)

# ---- test-dca.R: "dca() works" ---------------------------------------------------------
add_case("binary1", "test-dca.R", "dca(cancer ~ cancerpredmarker, data = df_binary)",
         list(data = "df_binary", y = "cancer", models = list("cancerpredmarker")),
         dca(cancer ~ cancerpredmarker, data = df_binary))
add_case("binary2", "test-dca.R", "dca(cancer ~ age, data = df_binary, as_probability = \"age\")",
         list(data = "df_binary", y = "cancer", models = list("age"), as_probability = list("age")),
         dca(cancer ~ age, data = df_binary, as_probability = "age"))
add_case("threshold_zero", "test-dca.R", "dca(cancer ~ famhistory, data = df_binary, thresholds = 0)",
         list(data = "df_binary", y = "cancer", models = list("famhistory"), thresholds = N(0)),
         dca(cancer ~ famhistory, data = df_binary, thresholds = 0))
add_case("surv1", "test-dca.R", "dca(Surv(ttcancer, cancer) ~ cancerpredmarker, data = df_surv, time = 1)",
         list(data = "df_surv", time_col = "ttcancer", status = "cancer", models = list("cancerpredmarker"), time = N(1)),
         dca(Surv(ttcancer, cancer) ~ cancerpredmarker, data = df_surv, time = 1))
add_case("surv2", "test-dca.R",
         "dca(Surv(ttcancer, cancer) ~ age, data = df_surv, time = 1, as_probability = \"age\")",
         list(data = "df_surv", time_col = "ttcancer", status = "cancer", models = list("age"), time = N(1),
              as_probability = list("age")),
         dca(Surv(ttcancer, cancer) ~ age, data = df_surv, time = 1, as_probability = "age"))
add_case("case_control", "test-dca.R",
         "dca(casecontrol ~ cancerpredmarker, data = df_case_control, prevalence = 0.15)",
         list(data = "df_case_control", y = "casecontrol", models = list("cancerpredmarker"), prevalence = N(0.15)),
         dca(casecontrol ~ cancerpredmarker, data = df_case_control, prevalence = 0.15))
add_case("competing", "test-dca.R",
         "dca(Surv(ttcancer, cancer_cr) ~ cancerpredmarker, data = df_surv, time = 1.5, thresholds = 1:50 / 100)",
         list(data = "df_surv", time_col = "ttcancer", status = "cancer_cr", models = list("cancerpredmarker"),
              time = N(1.5), thresholds = N(1:50 / 100)),
         dca(Surv(ttcancer, cancer_cr) ~ cancerpredmarker, data = df_surv, time = 1.5, thresholds = 1:50 / 100))

# the values test-dca.R and test-net_intervention_avoided.R state (to 1e-5)
stated <- list(
  binary1 = N(c(-0.1466667, 0.0000000, 0.0640000)), binary2 = N(c(-0.14666667, 0.00000000, 0.02444444)),
  threshold_zero = N(c(0.140, 0, 0.032)), surv1 = N(c(-0.13695058, 0.00000000, 0.05695371)),
  surv2 = N(c(-0.1369506, 0.0000000, -0.1424773)), case_control = N(c(-0.13333333, 0.00000000, 0.01495671)),
  nia_binary = N(c(0.0, 0.44, 0.632)))

# ---- the man pages and the other test files ---------------------------------------------
add_case("dca_rd_binary", "dca.Rd",
         paste("dca(cancer ~ cancerpredmarker + marker, data = df_binary, as_probability = \"marker\",",
               "label = list(cancerpredmarker = \"Prediction Model\", marker = \"Biomarker\"))"),
         list(data = "df_binary", y = "cancer", models = list("cancerpredmarker", "marker"),
              as_probability = list("marker"),
              label = list(cancerpredmarker = "Prediction Model", marker = "Biomarker")),
         dca(cancer ~ cancerpredmarker + marker, data = df_binary, as_probability = "marker",
             label = list(cancerpredmarker = "Prediction Model", marker = "Biomarker")))
add_case("nia_binary", "net_intervention_avoided.Rd, test-net_intervention_avoided.R",
         "dca(cancer ~ cancerpredmarker, data = df_binary) %>% net_intervention_avoided()",
         list(data = "df_binary", y = "cancer", models = list("cancerpredmarker"), nper = N(1)),
         dca(cancer ~ cancerpredmarker, data = df_binary), net_intervention_avoided)
add_case("nia_surv", "net_intervention_avoided.Rd",
         "dca(Surv(ttcancer, cancer) ~ cancerpredmarker, data = df_surv, time = 1) %>% net_intervention_avoided(nper = 100)",
         list(data = "df_surv", time_col = "ttcancer", status = "cancer", models = list("cancerpredmarker"),
              time = N(1), nper = N(100)),
         dca(Surv(ttcancer, cancer) ~ cancerpredmarker, data = df_surv, time = 1),
         function(x) net_intervention_avoided(x, nper = 100))
add_case("snb_surv", "standardized_net_benefit.Rd",
         "dca(Surv(ttcancer, cancer) ~ cancerpredmarker, data = df_surv, time = 1) %>% standardized_net_benefit()",
         list(data = "df_surv", time_col = "ttcancer", status = "cancer", models = list("cancerpredmarker"),
              time = N(1), snb = TRUE),
         dca(Surv(ttcancer, cancer) ~ cancerpredmarker, data = df_surv, time = 1), standardized_net_benefit)
add_case("snb_binary", "test-standardize_net_benefit.R",
         "dca(cancer ~ cancerpredmarker, data = df_binary) %>% standardized_net_benefit()",
         list(data = "df_binary", y = "cancer", models = list("cancerpredmarker"), snb = TRUE),
         dca(cancer ~ cancerpredmarker, data = df_binary), standardized_net_benefit)

# ---- probes where calstats has a branch ---------------------------------------------------
add_case("harm_list", "probe",
         "dca(cancer ~ cancerpredmarker + famhistory, data = df_binary, harm = list(cancerpredmarker = 0.0333, all = 0.01))",
         list(data = "df_binary", y = "cancer", models = list("cancerpredmarker", "famhistory"),
              harm = list(cancerpredmarker = 0.0333, all = 0.01)),
         dca(cancer ~ cancerpredmarker + famhistory, data = df_binary, harm = list(cancerpredmarker = 0.0333, all = 0.01)))
add_case("nia_harm_binary", "probe",
         paste("dca(cancer ~ cancerpredmarker + famhistory, data = df_binary, thresholds = c(0, 0.05, 0.25, 0.5, 0.75),",
               "harm = list(famhistory = 0.01)) %>% net_intervention_avoided(nper = 100)"),
         list(data = "df_binary", y = "cancer", models = list("cancerpredmarker", "famhistory"),
              thresholds = N(c(0, 0.05, 0.25, 0.5, 0.75)), harm = list(famhistory = 0.01), nper = N(100)),
         dca(cancer ~ cancerpredmarker + famhistory, data = df_binary, thresholds = c(0, 0.05, 0.25, 0.5, 0.75),
             harm = list(famhistory = 0.01)),
         function(x) net_intervention_avoided(x, nper = 100))
add_case("surv_prevalence", "probe",
         "dca(Surv(ttcancer, cancer) ~ cancerpredmarker, data = df_surv, time = 2, prevalence = 0.2)",
         list(data = "df_surv", time_col = "ttcancer", status = "cancer", models = list("cancerpredmarker"),
              time = N(2), prevalence = N(0.2)),
         dca(Surv(ttcancer, cancer) ~ cancerpredmarker, data = df_surv, time = 2, prevalence = 0.2))
add_case("competing_nia", "probe",
         paste("dca(Surv(ttcancer, cancer_cr) ~ cancerpredmarker + famhistory, data = df_surv, time = 1.5) %>%",
               "net_intervention_avoided()"),
         list(data = "df_surv", time_col = "ttcancer", status = "cancer_cr", models = list("cancerpredmarker", "famhistory"),
              time = N(1.5), nper = N(1)),
         dca(Surv(ttcancer, cancer_cr) ~ cancerpredmarker + famhistory, data = df_surv, time = 1.5),
         net_intervention_avoided)

# as_probability on a Surv outcome: dcurves takes exp(-predict(coxph, type = "expected")),
# the probability of being event-free by `time`, as the risk. The same decision curve with
# the risk 1 - exp(-H), through dca() itself:
cox_risk <- function(df, var, horizon) {
  d <- data.frame(outcome = Surv(df$ttcancer, df$cancer), variable = df[[var]])
  nd <- d; nd$outcome[, 1] <- horizon
  1 - exp(-predict(coxph(outcome ~ variable, data = d), newdata = nd, type = "expected"))
}
df_surv_risk <- df_surv %>% mutate(age_risk = cox_risk(df_surv, "age", 1), marker_risk = cox_risk(df_surv, "marker", 2))
add_case("surv_age_risk", "probe",
         "dca(Surv(ttcancer, cancer) ~ age_risk, data = df_surv, time = 1), age_risk = 1 - exp(-H(1 | age))",
         list(data = "df_surv", time_col = "ttcancer", status = "cancer", models = list("age"), time = N(1),
              as_probability = list("age"), rename = list(age = "age_risk")),
         dca(Surv(ttcancer, cancer) ~ age_risk, data = df_surv_risk, time = 1))
add_case("surv_marker_risk", "probe",
         paste("dca(Surv(ttcancer, cancer) ~ cancerpredmarker + marker_risk, data = df_surv, time = 2,",
               "thresholds = 0:20 / 40), marker_risk = 1 - exp(-H(2 | marker))"),
         list(data = "df_surv", time_col = "ttcancer", status = "cancer", models = list("cancerpredmarker", "marker"),
              time = N(2), as_probability = list("marker"), rename = list(marker = "marker_risk"),
              thresholds = N(0:20 / 40)),
         dca(Surv(ttcancer, cancer) ~ cancerpredmarker + marker_risk, data = df_surv_risk, time = 2,
             thresholds = 0:20 / 40))

# the converted risks themselves
conv <- function(outcome, v, type, time = NULL) N(dcurves:::.convert_to_risk(outcome, v, type, time))
converted <- list(
  binary_age = conv(df_binary$cancer, df_binary$age, "binary"),
  binary_marker = conv(df_binary$cancer, df_binary$marker, "binary"),
  surv_age_dcurves = conv(Surv(df_surv$ttcancer, df_surv$cancer), df_surv$age, "survival", 1),
  surv_age_risk = N(df_surv_risk$age_risk), surv_marker_risk = N(df_surv_risk$marker_risk))

# ---- test_consequences --------------------------------------------------------------------
tc_cases <- list()
add_tc <- function(id, source, code, spec, expr) {
  run <- capture_all(expr)
  tc_cases[[length(tc_cases) + 1]] <<- list(id = id, source = source, r = code, spec = spec,
                                             messages = run$messages, table = tibble_of(run$value),
                                             printed = capture.output(print(run$value)),
                                             printed_df = capture.output(print(as.data.frame(run$value))))
}
add_tc("tc_rd", "test_consequences.Rd", "test_consequences(cancer ~ cancerpredmarker, data = df_binary)",
       list(data = "df_binary", y = "cancer", models = list("cancerpredmarker")),
       test_consequences(cancer ~ cancerpredmarker, data = df_binary))
add_tc("tc_test", "test-test_consequences.R",
       "test_consequences(cancer ~ cancerpredmarker + famhistory, data = df_binary, thresholds = 0.5)",
       list(data = "df_binary", y = "cancer", models = list("cancerpredmarker", "famhistory"), thresholds = N(0.5)),
       test_consequences(cancer ~ cancerpredmarker + famhistory, data = df_binary, thresholds = 0.5))
tbl <- with(df_binary, table(famhistory, cancer))
tc_table <- list(a = N(tbl[2, 2]), b = N(tbl[2, 1]), c = N(tbl[1, 2]), d = N(tbl[1, 1]))
add_tc("tc_famhistory_grid", "probe",
       "test_consequences(cancer ~ famhistory + cancerpredmarker, data = df_binary, thresholds = c(0, 0.1, 0.5, 1))",
       list(data = "df_binary", y = "cancer", models = list("famhistory", "cancerpredmarker"),
            thresholds = N(c(0, 0.1, 0.5, 1))),
       test_consequences(cancer ~ famhistory + cancerpredmarker, data = df_binary, thresholds = c(0, 0.1, 0.5, 1)))
add_tc("tc_surv", "probe",
       "test_consequences(Surv(ttcancer, cancer) ~ cancerpredmarker, data = df_surv, time = 1.5, thresholds = c(0, 0.1, 0.25, 0.5, 0.9, 1))",
       list(data = "df_surv", time_col = "ttcancer", status = "cancer", models = list("cancerpredmarker"),
            time = N(1.5), thresholds = N(c(0, 0.1, 0.25, 0.5, 0.9, 1))),
       test_consequences(Surv(ttcancer, cancer) ~ cancerpredmarker, data = df_surv, time = 1.5,
                         thresholds = c(0, 0.1, 0.25, 0.5, 0.9, 1)))
add_tc("tc_case_control", "probe",
       paste("test_consequences(casecontrol ~ cancerpredmarker, data = df_case_control, prevalence = 0.15,",
             "statistics = c(\"ppv\", \"npv\", \"sens\", \"spec\", \"lr_pos\", \"lr_neg\"), thresholds = c(0.1, 0.2, 0.3))"),
       list(data = "df_case_control", y = "casecontrol", models = list("cancerpredmarker"), prevalence = N(0.15),
            statistics = list("ppv", "npv", "sens", "spec", "lr_pos", "lr_neg"), thresholds = N(c(0.1, 0.2, 0.3))),
       test_consequences(casecontrol ~ cancerpredmarker, data = df_case_control, prevalence = 0.15,
                         statistics = c("ppv", "npv", "sens", "spec", "lr_pos", "lr_neg"),
                         thresholds = c(0.1, 0.2, 0.3)))

# ---- errors (R's messages) -------------------------------------------------------------------
errors <- list(
  formula_letters = err(dca(formula = letters, data = df_binary)),
  reserved_all = err(dca(cancer ~ cancerpredmarker + all, data = df_binary %>% mutate(all = 1L))),
  data_letters = err(dca(cancer ~ cancerpredmarker, data = letters)),
  age_not_probability = err(dca(cancer ~ age, data = df_binary)),
  outcome_not_binary = err(dca(cancerpredmarker ~ cancer, data = df_binary)),
  surv_no_time = err(dca(Surv(ttcancer, cancer) ~ cancerpredmarker, data = df_surv)),
  surv_time_1000 = err(dca(Surv(ttcancer, cancer) ~ cancerpredmarker, data = df_surv, time = 1000)),
  label_letters = err(dca(cancer ~ cancerpredmarker, data = df_binary, label = letters)),
  label_list_letters = err(dca(cancer ~ cancerpredmarker, data = df_binary, label = as.list(letters))),
  harm_letters = err(dca(cancer ~ cancerpredmarker, data = df_binary, harm = letters)),
  harm_list_letters = err(dca(cancer ~ cancerpredmarker, data = df_binary, harm = as.list(letters))),
  as_probability_numbers = err(dca(cancer ~ cancerpredmarker, data = df_binary, as_probability = 1:5)),
  nia_not_dca = err(net_intervention_avoided(mtcars)),
  snb_with_harm = err(standardized_net_benefit(dca(cancer ~ cancerpredmarker, data = df_binary,
                                                   harm = list(cancerpredmarker = 0.5)))),
  snb_not_dca = err(standardized_net_benefit(mtcars)),
  plot_snb_not_computed = err(plot(dca(cancer ~ cancerpredmarker, data = df_binary), type = "standardized_net_benefit")),
  plot_nia_not_computed = err(plot(dca(cancer ~ cancerpredmarker, data = df_binary), type = "net_intervention_avoided")),
  tc_data_letters = err(test_consequences(formula = cancer ~ cancerpredmarker, data = letters)),
  tc_label_letters = err(test_consequences(formula = cancer ~ cancerpredmarker, data = df_binary, label = letters)),
  tc_formula_letters = err(test_consequences(formula = letters, data = mtcars)),
  competing_as_probability = err(dca(Surv(ttcancer, cancer_cr) ~ age, data = df_surv, time = 1, as_probability = "age")))

# print.dca: a ggplot, after this message
grDevices::pdf(NULL)
print_message <- capture_all(print(dca(cancer ~ cancerpredmarker, data = df_binary)))$messages
invisible(grDevices::dev.off())

out <- list(
  versions = list(R = paste(R.version$major, R.version$minor, sep = "."), dcurves = as.character(packageVersion("dcurves")),
                  survival = as.character(packageVersion("survival")), tibble = as.character(packageVersion("tibble")),
                  pillar = as.character(packageVersion("pillar"))),
  data = list(df_binary = data_of(df_binary), df_surv = data_of(df_surv), df_case_control = data_of(df_case_control)),
  thresholds_default = N(thr_default), cases = cases, stated = stated, converted = converted,
  test_consequences = tc_cases, tc_table = tc_table, errors = errors, print_message = print_message)
writeLines(toJSON(out, digits = NA, auto_unbox = TRUE, null = "null", na = "null", pretty = FALSE,
                  json_verbatim = TRUE), "tests/fixtures/dcurves_suite.json")
cat("dcurves_suite.json:", length(cases), "dca cases,", length(tc_cases), "test_consequences cases,",
    length(errors), "errors\n")
