"""The SNIA Solid State Storage Performance Test Specification (PTS v2.0.x) in the lab.

``steady_state`` holds the rule, ``procedure`` the steps every test shares (purge,
workload-independent preconditioning, rounds until steady state, the data pattern), ``charts``
the plots in the specification's report layout. The tests themselves are review suites:
``ssdlab.lab.suites.pts_iops``, ``pts_throughput``, ``pts_latency``, ``pts_wsat``, ``pts_hir``.
"""
