# Copyright (c) robustdet contributors. All rights reserved.
import os.path as osp

from setuptools import find_packages, setup


def readme():
    with open('README.md', encoding='utf-8') as f:
        return f.read()


def get_version():
    scope = {}
    with open(osp.join('robustdet', 'version.py')) as f:
        exec(compile(f.read(), 'robustdet/version.py', 'exec'), scope)
    return scope['__version__']


def parse_requirements(fname):
    """Read requirement lines, following ``-r`` includes."""
    reqs = []
    with open(fname) as f:
        for line in f:
            line = line.split('#', 1)[0].strip()
            if not line:
                continue
            if line.startswith('-r '):
                reqs += parse_requirements(
                    osp.join(osp.dirname(fname), line[3:].strip()))
            else:
                reqs.append(line)
    return reqs


setup(
    name='robustdet',
    version=get_version(),
    description='Robustness benchmarks for mmdetection 3.x detectors: '
    'image corruptions, stylized training, natural distribution shifts, '
    'video-frame neighbour sets and video corruptions',
    long_description=readme(),
    long_description_content_type='text/markdown',
    packages=find_packages(include=('robustdet', 'robustdet.*')),
    include_package_data=True,
    package_data={'robustdet.reports': ['templates/*.j2', 'templates/*.css']},
    python_requires='>=3.8',
    license='Apache License 2.0',
    classifiers=[
        'Programming Language :: Python :: 3',
        'License :: OSI Approved :: Apache Software License',
        'Topic :: Scientific/Engineering :: Artificial Intelligence',
    ],
    # torch is not listed: users bring the build for their hardware.
    install_requires=parse_requirements('requirements/runtime.txt') +
    parse_requirements('requirements/mminstall.txt'),
    extras_require=dict(tests=parse_requirements('requirements/tests.txt')),
    zip_safe=False)
