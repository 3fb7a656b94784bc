"""``irexec diff``: where another implementation departs from irexec, layer by layer.

accuracy.py states each op's tolerance; figures.py measures one tensor against the
reference; reference.py runs irexec; device.py runs an OpenVINO device plugin;
core.py exposes layers (all at once or by bisection) and origins.py names where an
error starts; report.py holds the result and render_*.py write it out.
"""
