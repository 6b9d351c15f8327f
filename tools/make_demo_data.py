# Copyright (c) robustdet contributors. All rights reserved.
"""Deprecated: moved to ``demo/make_demo_data.py`` (same flags); this
path works for one release."""
import os.path as osp
import runpy
import sys

NEW = osp.join(osp.dirname(osp.dirname(osp.abspath(__file__))), 'demo',
               'make_demo_data.py')

if __name__ == '__main__':
    print(f'tools/{osp.basename(NEW)} is deprecated: run demo/'
          f'{osp.basename(NEW)}', file=sys.stderr)
    sys.path[0] = osp.dirname(NEW)
    sys.argv[0] = NEW
    runpy.run_path(NEW, run_name='__main__')
