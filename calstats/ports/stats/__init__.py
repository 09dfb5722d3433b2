"""Ports of R's stats package (and its recommended neighbours splines and MASS' profile):
``glm.fit``, ``profile.glm``, ``loess``, ``lowess``, ``isoreg``, ``bs``/``ns``."""
