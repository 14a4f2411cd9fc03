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
"""heat-api for the distributed tests: Heat's WSGI app, threaded server.

Serves ``heat.api.openstack.wsgi.init_application()`` — what Heat's
``heat-wsgi-api`` script and a production uWSGI/Apache serve — on
127.0.0.1. ``heat-wsgi-api`` itself runs wsgiref's single-threaded test
server, which would serialise the concurrent clients the tests need.

    python api_server.py --port 8004 -- --config-file heat.conf
"""

import argparse
import socketserver
import sys
from wsgiref import simple_server


class ThreadingWSGIServer(socketserver.ThreadingMixIn,
                          simple_server.WSGIServer):
    daemon_threads = True
    request_queue_size = 128


class QuietHandler(simple_server.WSGIRequestHandler):
    def log_message(self, format, *args):
        pass  # heat-api logs every request in its own log file


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--port', type=int, required=True)
    parser.add_argument('--host', default='127.0.0.1')
    parser.add_argument('args', nargs=argparse.REMAINDER)
    args = parser.parse_args()
    passed = args.args
    if passed and passed[0] == '--':
        passed = passed[1:]
    sys.argv[1:] = passed
    from heat.api.openstack import wsgi
    app = wsgi.init_application()
    server = simple_server.make_server(
        args.host, args.port, app, server_class=ThreadingWSGIServer,
        handler_class=QuietHandler)
    server.serve_forever()


if __name__ == '__main__':
    main()
