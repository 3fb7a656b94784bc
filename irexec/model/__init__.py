"""A document bound to ops: the Model (layers, graph, op instances), variables,
pre-processing, tensor naming, IR v10 rules and the IR builder."""
