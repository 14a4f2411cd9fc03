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
"""Smoke tests for tools/heat_compat.py (the Heat-unit-tests runner)."""

import importlib.util
import os
import shutil
import subprocess
import sys
import unittest
from unittest import mock

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, 'tools', 'heat_compat.py')

_spec = importlib.util.spec_from_file_location('heat_compat', TOOL)
heat_compat = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(heat_compat)

HAVE_HEAT_TESTS = (importlib.util.find_spec('heat') is not None
                   and importlib.util.find_spec('heat.tests') is not None)


class ArgsTest(unittest.TestCase):

    def test_default_modules(self):
        args = heat_compat.parse_args([])
        self.assertEqual(heat_compat.DEFAULT_MODULES, args.modules)
        self.assertIn('heat.tests.test_lifecycle_plugin_utils', args.modules)
        self.assertFalse(args.without_plugin)

    def test_all_excludes_modules(self):
        self.assertEqual([heat_compat.ALL],
                         heat_compat.parse_args(['--all']).modules)
        with mock.patch('sys.stderr'), self.assertRaises(SystemExit):
            heat_compat.parse_args(['--all', 'heat.tests.test_stack'])


class HidePluginTest(unittest.TestCase):

    def test_only_our_entry_point_is_hidden(self):
        from importlib import metadata

        from stevedore import extension

        ours = metadata.EntryPoint(name='breakpoint',
                                   value=heat_compat.PLUGIN_TARGET,
                                   group=heat_compat.PLUGIN_NAMESPACE)
        other = metadata.EntryPoint(name='other', value='x.y:Z',
                                    group=heat_compat.PLUGIN_NAMESPACE)

        def fake_list(self):
            return [ours, other]

        with mock.patch.object(extension.ExtensionManager,
                               'list_entry_points', fake_list):
            heat_compat._hide_plugin_entry_point()
            mgr = mock.Mock(namespace=heat_compat.PLUGIN_NAMESPACE)
            lister = extension.ExtensionManager.list_entry_points
            self.assertEqual([other], lister(mgr))
            mgr.namespace = 'heat.constraints'
            self.assertEqual([ours, other], lister(mgr))


@unittest.skipUnless(HAVE_HEAT_TESTS, 'openstack-heat (with tests) needed')
class TmpRootTest(unittest.TestCase):

    def test_layout_without_writing_site_packages(self):
        root, heat_dir, etc_dir = heat_compat.make_tmp_root()
        self.addCleanup(shutil.rmtree, root, True)
        self.assertEqual(heat_dir,
                         os.path.realpath(os.path.join(root, 'heat')))
        for rel in heat_compat.REQUIRED_ETC_FILES:
            self.assertTrue(os.path.isfile(
                os.path.join(root, 'etc', 'heat', rel)), rel)


@unittest.skipUnless(HAVE_HEAT_TESTS, 'openstack-heat (with tests) needed')
class EndToEndTest(unittest.TestCase):
    """Runs one small Heat test module through the tool (a few seconds)."""

    def _run(self, *extra):
        proc = subprocess.run(
            [sys.executable, TOOL, '-j1', *extra,
             'heat.tests.test_lifecycle_plugin_utils'],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            timeout=300)
        return proc.returncode, proc.stdout

    def test_with_plugin(self):
        rc, out = self._run()
        self.assertEqual(0, rc, out)
        self.assertIn('plugins: [breakpoint=' + heat_compat.PLUGIN_TARGET
                      .replace(':', '.') + ']', out)
        self.assertRegex(out.rstrip().splitlines()[-1],
                         r'^[1-9]\d* passed, 0 failed$')

    def test_without_plugin(self):
        rc, out = self._run('--without-plugin')
        self.assertEqual(0, rc, out)
        self.assertIn('plugins: [(none)]', out)
        self.assertRegex(out.rstrip().splitlines()[-1],
                         r'^[1-9]\d* passed, 0 failed$')
