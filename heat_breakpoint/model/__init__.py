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
"""The model the client extension and the engine plugin share.

What a breakpoint is and how it is written (:mod:`.breakpoints`,
:mod:`.registry`, :mod:`.envfile`), paths into nested stacks
(:mod:`.nesting`, :mod:`.resource_names`), what counts as a secret
(:mod:`.secrets`), the words the engine writes (:mod:`.reasons`) and the
keys of the signals between the two halves (:mod:`.protocol`). Both
halves import it, so nothing here imports Heat.
"""
