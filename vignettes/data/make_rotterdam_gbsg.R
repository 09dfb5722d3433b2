#!/usr/bin/env Rscript
# The data of the vignette "internal and external validation of a survival model": the
# Rotterdam tumour bank (development) and the German Breast Cancer Study Group trial
# (external validation) as R's survival package ships them (survival 3.5-3, datasets
# `rotterdam` and `gbsg`; Royston & Altman, BMC Med Res Methodol 2013;13:33). Run from the
# repository root: Rscript vignettes/data/make_rotterdam_gbsg.R
#
# Recurrence-free survival in days: the first of recurrence and death. In `rotterdam` a
# death without a recurrence after the end of the recurrence follow-up (rtime < dtime) is
# censored at rtime, as the example of survival's help page for `rotterdam` does; `gbsg`
# has rfstime and status.
# Covariates common to both: age, menopausal status, tumour size (mm in gbsg, the
# categories <=20, 20-50, >50 in rotterdam), grade (gbsg's grade 1 is grade 2 here, as
# rotterdam has only grades 2 and 3), positive nodes, progesterone and oestrogen
# receptors (fmol/l), hormonal treatment. Only node-positive patients (as in gbsg).
suppressPackageStartupMessages(library(survival))
stopifnot(packageVersion("survival") == "3.5.3")
r <- rotterdam
ignore <- with(r, recur == 0 & death == 1 & rtime < dtime)
rfs <- with(r, ifelse(recur == 1 | ignore, recur, death))
rfstime <- with(r, ifelse(recur == 1 | ignore, rtime, dtime))
dev <- data.frame(cohort = "rotterdam", age = r$age, meno = r$meno, size = as.character(r$size),
                  grade = r$grade, nodes = r$nodes, pgr = r$pgr, er = r$er, hormon = r$hormon,
                  rfstime = rfstime, status = rfs)
dev <- dev[dev$nodes > 0, ]
g <- gbsg
val <- data.frame(cohort = "gbsg", age = g$age, meno = g$meno,
                  size = as.character(cut(g$size, c(0, 20, 50, Inf), labels = c("<=20", "20-50", ">50"))),
                  grade = pmax(g$grade, 2), nodes = g$nodes, pgr = g$pgr, er = g$er, hormon = g$hormon,
                  rfstime = g$rfstime, status = g$status)
out <- rbind(dev, val)
con <- gzfile("vignettes/data/rotterdam_gbsg.csv.gz", "w")
write.csv(out, con, row.names = FALSE)
close(con)
cat(nrow(dev), "development rows,", nrow(val), "validation rows\n")
