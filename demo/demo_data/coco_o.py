# Copyright (c) robustdet contributors. All rights reserved.
"""A COCO-O tree (Mao et al., ICCV 2023) made from the demo's COCO layout,
in the real layout: ``<root>/<domain>/val2017/*.jpg`` and
``<root>/<domain>/annotations/instances_val2017.json`` for the six
domains. COCO-O itself cannot be downloaded here (``ood_coco.zip`` from
alibaba/easyrobust); this stands in for it in the tests and the docs."""
import json
import os
import os.path as osp
import shutil

import cv2

from robustdet.apis.shift import COCO_O_DOMAINS

ANN = osp.join('annotations', 'instances_val2017.json')


def _write_domain(root, domain, images, ann, transform=None, rename=None,
                  id_offset=0):
    """One domain: ``images`` (paths) copied or transformed into
    ``val2017/`` and ``ann`` (a COCO dict of exactly those images) with
    file names and image / annotation ids changed as asked."""
    ann = json.loads(json.dumps(ann))
    os.makedirs(osp.join(root, domain, 'val2017'))
    for info in ann['images']:
        src = images[info['file_name']]
        if rename:
            info['file_name'] = rename(info['file_name'])
        dst = osp.join(root, domain, 'val2017', info['file_name'])
        if transform is None:
            shutil.copyfile(src, dst)
        else:
            cv2.imwrite(dst, transform(cv2.imread(src)))
        info['id'] += id_offset
    for a in ann['annotations']:
        a['image_id'] += id_offset
        a['id'] += id_offset
    os.makedirs(osp.join(root, domain, 'annotations'))
    with open(osp.join(root, domain, ANN), 'w') as f:
        json.dump(ann, f)
    return len(ann['images'])


def _subset(ann, keep):
    ids = {i['id'] for i in ann['images'] if i['file_name'] in keep}
    return dict(ann,
                images=[i for i in ann['images'] if i['id'] in ids],
                annotations=[a for a in ann['annotations']
                             if a['image_id'] in ids])


def _sketch(img):
    edges = cv2.Canny(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), 60, 160)
    return cv2.cvtColor(255 - edges, cv2.COLOR_GRAY2BGR)


def write_coco_o(coco_dir, root):
    """A COCO-O tree from the demo COCO layout. ``weather`` is val as it
    is and ``painting`` the same images under other file names and image
    ids (both must score exactly like the reference); ``sketch`` (edges
    of two val images), ``handmake`` (the same two images as they are),
    ``tattoo`` (the other two, inverted) and ``cartoon`` (three train
    images) have their own images and annotations.

    Returns:
        dict: Images per domain.
    """
    def load(split):
        with open(osp.join(coco_dir, 'annotations',
                           f'instances_{split}2017.json')) as f:
            ann = json.load(f)
        files = {i['file_name']: osp.join(coco_dir, f'{split}2017',
                                          i['file_name'])
                 for i in ann['images']}
        return ann, files

    val, val_files = load('val')
    train, train_files = load('train')
    first, last = _subset(val, sorted(val_files)[:2]), _subset(
        val, sorted(val_files)[2:])
    counts = dict(
        sketch=_write_domain(root, 'sketch', val_files, first, _sketch),
        cartoon=_write_domain(root, 'cartoon', train_files,
                              _subset(train, sorted(train_files)[:3])),
        painting=_write_domain(root, 'painting', val_files, val,
                               rename=lambda n: f'painting_{n}',
                               id_offset=1000),
        weather=_write_domain(root, 'weather', val_files, val),
        handmake=_write_domain(root, 'handmake', val_files, first),
        tattoo=_write_domain(root, 'tattoo', val_files, last,
                             lambda img: 255 - img))
    assert list(counts) == list(COCO_O_DOMAINS)
    return counts
