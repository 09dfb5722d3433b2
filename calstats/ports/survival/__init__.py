"""Ports of R's survival package (3.5-3): ``coxph``, ``survfit``, ``aeqSurv`` and ``concordance``."""
