"""R's model functions, one subpackage per R package, named as R names them.

A statistician who knows ``survival::coxph`` finds it in :mod:`calstats.ports.survival.coxph`:

* :mod:`.stats` -- ``glm.fit`` and its families, ``profile.glm``/``confint``, ``loess``,
  ``lowess``, ``isoreg``, and the ``splines`` package's ``bs``/``ns``/``splineDesign``;
* :mod:`.survival` -- ``coxph``, ``survfit`` (Kaplan-Meier) and ``aeqSurv``;
* :mod:`.mgcv` -- ``gam`` with its thin-plate and cubic regression bases and the ``cox.ph``
  family;
* :mod:`.rms` -- ``lrm.fit``;
* :mod:`.hmisc` -- ``rcspline.eval`` and ``cut2``;
* :mod:`.vgam` -- ``vglm`` with the multinomial family;
* :mod:`.prodlim` -- prodlim's Kaplan-Meier (and reverse, for the censoring) and
  Aalen-Johansen estimators;
* :mod:`.riskregression` -- ``Score``'s IPCW AUC and Brier score with their influence
  functions;
* :mod:`.cmprsk` -- ``cuminc`` and ``timepoints``.

They sit above :mod:`calstats.numerics` (R's arithmetic: libm, long-double sums, LAPACK,
BFGS, Brent, the nmath tails) and :mod:`calstats.rng` (R's random stream), and below every
front end. They take arrays that the front ends have checked and return plain records; none
builds a result object or checks a user's input.
"""
