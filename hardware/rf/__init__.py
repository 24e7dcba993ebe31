"""The tray's RF model: loop inductances and couplings from geometry (loops.py), the field a
coil makes where a tag lies and the tag's read window (window.py), and the matching network
with its EMC filter, damping, E-series values and tolerances (network.py).

Standard library only, SI units inside (metres, henries, farads, ohms, amperes); figures in
and out of hardware/data/*.toml are in mm, nH, pF. hardware/design.py reports from it, and
tests/hardware/test_rf.py checks it against closed forms and a published worked example.
"""
