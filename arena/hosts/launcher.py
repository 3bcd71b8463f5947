"""The trusted launcher of an isolated bot, run as `python -I path/to/launcher.py CONFIG` (or
`python -I -m arena.hosts.launcher CONFIG`): the first code of the bot's own process. Its work
(limits, the start gate, Landlock, then serve or exec) is `arena.hosts.launch`'s, loaded by its
path beside this file from its compiled bytecode, without importing arena: a script run by
path is compiled at every start, which cost a bot's start 19M instructions (a bare Python
start is 144M), so this one is short.
"""

import importlib.util
import os
import sys

if __name__ == "__main__":
    _spec = importlib.util.spec_from_file_location(
        "arena_launch", os.path.join(os.path.dirname(os.path.abspath(__file__)), "launch.py"))
    assert _spec is not None and _spec.loader is not None
    _launch = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(_launch)
    _launch.main(sys.argv[1:])
