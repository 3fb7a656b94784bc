"""Renderers for what irexec prints: tables and check reports."""
