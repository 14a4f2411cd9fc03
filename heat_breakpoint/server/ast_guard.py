# Licensed under the Apache License, Version 2.0 (the "License"); you may
# not use this file except in compliance with the License. You may obtain
# a copy of the License at
#
#      http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
# WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
# License for the specific language governing permissions and limitations
# under the License.
"""Serialise AST compilation across threads.

CPython 3.11 before 3.11.8 keeps the AST converter's recursion counter in
state shared by all threads, so two threads in ``ast.parse`` at once can
fail with ``AST constructor recursion depth mismatch``. Heat's convergence
workers parse every sync point with ``ast.literal_eval`` on RPC threads,
so a busy local server hits it. The server process is ours, so we route
``compile`` (which ``ast.parse`` calls) through one re-entrant lock.
"""

import builtins
import threading

_lock = threading.RLock()
_original_compile = builtins.compile


def _locked_compile(*args, **kwargs):
    with _lock:
        return _original_compile(*args, **kwargs)


def install() -> None:
    builtins.compile = _locked_compile


def installed() -> bool:
    return builtins.compile is _locked_compile
