"""The review lab: every test from the articles as a suite, with charts, a report and a results
database.

- :mod:`ssdlab.lab.context`: what a review runs against (profile, scale, seed) and helpers.
- :mod:`ssdlab.lab.suites`: the suites (four corners, AS-SSD, ATTO, HD Tach, resiliency, IO
  consistency, power, storage bench).
- :mod:`ssdlab.lab.db`: the SQLite results database.
- :mod:`ssdlab.lab.charts`, :mod:`ssdlab.lab.report`: pictures and HTML pages.
- :mod:`ssdlab.lab.calibration`: published figures beside simulated ones.
- :mod:`ssdlab.lab.review`: runs a review end to end.
"""
