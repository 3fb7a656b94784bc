"""Every op irexec implements, one subpackage per family (``movement/``,
``elementwise/``, ``control/``, ...): each module registers its ops on import.
``base.py`` (the declaration language), ``registry.py``, ``helpers.py`` and
``spatial.py`` are what ops share.  Where a new op goes: docs/adding-an-op.md.

The op modules are imported when the registry is first asked for one of their
types (``op_index.py`` says which module registers which type), or all of them
by ``registry.load_all()`` (``irexec ops``, ``all_ops()``): a command on a model
pays for the ops it uses."""
