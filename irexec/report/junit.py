"""``--format junit``: one testsuite, one testcase per model file; a file
whose errors (and, with --strict, warnings) make it fail gets one <failure>
listing them.  Other findings go to the testcase's <system-out>."""

from __future__ import annotations

import re

from lxml import etree

from .check_report import CheckReport, weight

SUITE = "irexec check"

# Characters XML 1.0 cannot carry (a message may quote bytes of a broken file)
_NOT_XML = re.compile("[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml_safe(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


def render_junit(report: CheckReport) -> str:
    failed = sum(bool(f.failures(report.strict)) for f in report.files)
    total = f"{sum(f.seconds for f in report.files):.3f}"
    root = etree.Element("testsuites", name=SUITE, tests=str(len(report.files)), failures=str(failed), errors="0",
                         time=total)
    suite = etree.SubElement(root, "testsuite", name=SUITE, tests=str(len(report.files)), failures=str(failed),
                             errors="0", skipped="0", time=total)
    for f in report.files:
        case = etree.SubElement(suite, "testcase", name=_xml_safe(f.path), classname="irexec.check", file=_xml_safe(f.path),
                                time=f"{f.seconds:.3f}")
        failures = f.failures(report.strict)
        if failures:
            codes = sorted({d.code for d in failures})
            n = sum(weight(d) for d in failures)  # as the summary line and --statistics count
            summary = f"{n} finding{'s' if n != 1 else ''}: {failures[0].format()}"
            fail = etree.SubElement(case, "failure", type=",".join(codes), message=_xml_safe(summary))
            fail.text = _xml_safe("\n".join(d.format() for d in failures))
        failing = {id(d) for d in failures}
        others = [d for d in f.diagnostics if id(d) not in failing]
        if others:
            etree.SubElement(case, "system-out").text = _xml_safe("\n".join(d.format() for d in others))
    return etree.tostring(root, pretty_print=True, xml_declaration=True, encoding="UTF-8").decode("utf-8")
