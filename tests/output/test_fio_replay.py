#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Replay real fio results through iogap's output code and compare.

fio's JSON+ carries almost everything a report is made of (histogram bins,
min/max/mean/stddev, bandwidth and IOPS samples, depth and latency shares);
the rest (pid, jobs=N) is read from fio's normal text.  The replay helper
rebuilds iogap_job_stat entries from that, prints normal, JSON and JSON+
output, and this script compares them with what fio printed: the normal
text line by line (dates masked), the JSON+ document byte for byte.

Inputs: every tests/output/data/*.out (fio --output-format=json+,normal
output, kept from real runs) and, when /usr/bin/fio exists and
IOGAP_NO_LIVE_FIO is unset, a few jobs run now.

usage: test_fio_replay.py REPLAY_BINARY   (TAP on stdout)
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DDIRS = ['read', 'write', 'trim']
KINDS = ['slat_ns', 'clat_ns', 'lat_ns']   # iogap's IOGAP_SLAT, CLAT, LAT
LAT_N = ['2', '4', '10', '20', '50', '100', '250', '500', '750', '1000']
LAT_M = LAT_N + ['2000', '>=2000']
DEPTH = ['1', '2', '4', '8', '16', '32', '>=64']
BATCH = ['0', '4', '8', '16', '32', '64', '>=64']
HEADER = re.compile(r'^(.*): \(groupid=(\d+), jobs=(\d+)\): err=\s*(\d+)(?: \((.*)\))?: pid=(\d+): ')

LIVE_JOBS = {
    'randrw-psync': ['--name=t', '--size=8M', '--rw=randrw', '--bs=4k',
                     '--ioengine=psync', '--time_based', '--runtime=1'],
    'libaio-qd8': ['--name=q', '--size=8M', '--rw=randread', '--bs=4k',
                   '--ioengine=libaio', '--iodepth=8', '--time_based', '--runtime=1',
                   '--lat_percentiles=1', '--slat_percentiles=1'],
    'groups': ['--size=4M', '--ioengine=psync', '--bs=8k', '--time_based', '--runtime=1',
               '--description=two "writers"',
               '--name=w', '--rw=write', '--fsync=8', '--numjobs=2', '--group_reporting',
               '--percentile_list=1:50:99.9:99.999',
               '--name=r', '--rw=read', '--new_group', '--bs=64k'],
}


def split_output(text):
    """fio's file: optional preamble, the JSON document, then normal text."""
    m = re.search(r'^\{', text, re.M)
    doc, end = json.JSONDecoder().raw_decode(text[m.start():])
    json_text = text[m.start():m.start() + end] + '\n'
    normal = text[m.start() + end + 1:]    # after the JSON's own newline
    return doc, json_text, normal


def share_count(pct, total, floor):
    """A count giving pct of total; fio shows any non-zero share below
    the floor as the floor, so a share at the floor is rebuilt as 1."""
    if pct <= 0:
        return 0
    if abs(pct - floor) < 1e-9:
        return 1
    return max(round(pct * total / 100.0), 1)


def describe(doc, normal):
    heads = [HEADER.match(l) for l in normal.splitlines()]
    heads = [h for h in heads if h]
    out = ['report\t%d\t%d\t%d\t%s' % (doc['timestamp'], doc['timestamp_ms'],
                                      doc['jobs'][0]['elapsed'] if doc['jobs'] else 0,
                                      doc['fio version'])]
    for k, v in doc.get('global options', {}).items():
        out.append('gopt\t%s\t%s' % (k, v))
    for i, job in enumerate(doc['jobs']):
        h = heads[i]
        out.append('job\t%s' % job['jobname'])
        for k, v in job.get('job options', {}).items():
            out.append('jopt\t%s\t%s' % (k, v))
        out.append('id\t%d\t%s\t%s\t%d' % (job['groupid'], h.group(3), h.group(6), job['error']))
        if h.group(5):
            out.append('verror\t%s' % h.group(5))
        if 'desc' in job:
            out.append('desc\t%s' % job['desc'])
        flags = [any('percentile' in job[d][k] for d in DDIRS) for k in KINDS]
        if 'percentile' in job['sync']['lat_ns'] and not (flags[1] or flags[2]):
            flags[1] = True
        out.append('pflags\t%d\t%d\t%d' % (flags[1], flags[2], flags[0]))
        plist = None
        for d in DDIRS + ['sync']:
            for k in KINDS:
                if k in job[d] and 'percentile' in job[d][k]:
                    plist = list(job[d][k]['percentile'].keys())
        if plist:
            out.append('plist\t' + '\t'.join(plist))
        issued = 0
        for di, d in enumerate(DDIRS):
            s = job[d]
            issued += s['total_ios']
            # fio's JSON has no zone resets; these fio runs are not zoned.
            out.append('dir\t%d\t%d\t%d\t%d\t%d\t%d\t0' % (
                di, s['io_bytes'], s['runtime'], s['total_ios'], s['short_ios'],
                s['drop_ios']))
            for ki, k in enumerate(KINDS):
                l = s[k]
                out.append('lat\t%d\t%d\t%d\t%d\t%.6f\t%.6f\t%d' % (
                    di, ki, l['min'], l['max'], l['mean'], l['stddev'], l['N']))
                for v, c in l.get('bins', {}).items():
                    out.append('bin\t%d\t%d\t%s\t%d' % (di, ki, v, c))
            out.append('bw\t%d\t%d\t%d\t%.6f\t%.6f\t%d' % (
                di, s['bw_min'], s['bw_max'], s['bw_mean'], s['bw_dev'], s['bw_samples']))
            out.append('iops\t%d\t%d\t%d\t%.6f\t%.6f\t%d' % (
                di, s['iops_min'], s['iops_max'], s['iops_mean'], s['iops_stddev'],
                s['iops_samples']))
        sl = job['sync']['lat_ns']
        out.append('sync\t%d\t%d\t%d\t%.6f\t%.6f\t%d' % (
            job['sync']['total_ios'], sl['min'], sl['max'], sl['mean'], sl['stddev'], sl['N']))
        for v, c in sl.get('bins', {}).items():
            out.append('syncbin\t%s\t%d' % (v, c))
        rt = job['job_runtime']
        out.append('cpu\t%d\t%d\t%d\t%d\t%d\t%d' % (
            round(job['usr_cpu'] * rt / 100), round(job['sys_cpu'] * rt / 100), rt,
            job['ctx'], job['majf'], job['minf']))
        for tag, key, names in (('lat_n', 'latency_ns', LAT_N), ('lat_u', 'latency_us', LAT_N),
                                ('lat_m', 'latency_ms', LAT_M)):
            for j, n in enumerate(names):
                out.append('%s\t%d\t%d' % (tag, j, share_count(job[key][n], issued, 0.01)))
        for j, n in enumerate(DEPTH):
            out.append('map\t%d\t%d' % (j, share_count(job['iodepth_level'][n], issued, 0.1)))
        big = 10 ** 8
        for tag, key in (('submit', 'iodepth_submit'), ('complete', 'iodepth_complete')):
            for j, n in enumerate(BATCH):
                out.append('%s\t%d\t%d' % (tag, j, share_count(job[key][n], big, 0.1)))
        out.append('totals\t%d\t%d' % (big, big))
        out.append('iodepth\t%d' % job.get('latency_depth', 0))
        out.append('lattarget\t%d\t%d\t%f' % (job.get('latency_target', 0),
                                               job.get('latency_window', 0),
                                               job.get('latency_percentile', 100.0)))
    for du in doc.get('disk_util', []):
        out.append('disk\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d' % (
            du['name'], du['read_ios'], du['write_ios'], du['read_merges'],
            du['write_merges'], du['read_ticks'], du['write_ticks'], du['in_queue'],
            10 ** 8, round(du['util'] * 10 ** 6)))
    return '\n'.join(out) + '\n'


def mask_dates(text):
    return re.sub(r'(pid=\d+): .*', r'\1: DATE', text)


def strip_bins(o):
    if isinstance(o, dict):
        return {k: strip_bins(v) for k, v in o.items() if k != 'bins'}
    if isinstance(o, list):
        return [strip_bins(v) for v in o]
    return o


def first_diff(a, b):
    al, bl = a.splitlines(), b.splitlines()
    for i in range(max(len(al), len(bl))):
        x = al[i] if i < len(al) else '<EOF>'
        y = bl[i] if i < len(bl) else '<EOF>'
        if x != y:
            return 'line %d:\n#  fio:   %r\n#  iogap: %r' % (i + 1, x, y)
    return 'identical'


def run_live(tmp):
    fio = shutil.which('fio')
    if not fio or os.environ.get('IOGAP_NO_LIVE_FIO'):
        return {}
    res = {}
    for name, args in LIVE_JOBS.items():
        out = os.path.join(tmp, name + '.out')
        cmd = [fio, '--output-format=json+,normal', '--output=' + out,
               '--directory=' + tmp] + args
        if subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                          cwd=tmp).returncode == 0:
            res['live-' + name] = open(out).read()
    return res


def main():
    replay = sys.argv[1]
    os.environ['TZ'] = os.environ.get('TZ', 'UTC')
    cases = {}
    data = os.path.join(HERE, 'data')
    for f in sorted(os.listdir(data)) if os.path.isdir(data) else []:
        if f.endswith('.out'):
            cases[f[:-4]] = open(os.path.join(data, f)).read()
    with tempfile.TemporaryDirectory() as tmp:
        cases.update(run_live(tmp))
        tests = []
        for name, text in cases.items():
            doc, json_text, normal = split_output(text)
            desc = describe(doc, normal)

            def replay_out(mode, desc=desc):
                return subprocess.run([replay, mode], input=desc, capture_output=True,
                                      text=True, check=True).stdout

            ours = replay_out('normal')
            tests.append(('%s: normal output equals fio\'s' % name,
                          mask_dates(normal) == mask_dates(ours),
                          first_diff(mask_dates(normal), mask_dates(ours))))
            plus = replay_out('json+')
            tests.append(('%s: JSON+ output equals fio\'s byte for byte' % name,
                          plus == json_text, first_diff(json_text, plus)))
            plain = replay_out('json')
            tests.append(('%s: JSON output equals fio\'s without bins' % name,
                          json.loads(plain) == strip_bins(doc), ''))
            conv = shutil.which('fio_jsonplus_clat2csv')
            if conv:
                src = os.path.join(tmp, name + '.json')
                open(src, 'w').write(plus)
                r = subprocess.run(['python3', conv, src, os.path.join(tmp, name + '.csv')],
                                   capture_output=True, text=True)
                tests.append(('%s: fio_jsonplus_clat2csv accepts our JSON+' % name,
                              r.returncode == 0, r.stderr.strip()))
    print('1..%d' % len(tests))
    for i, (desc, ok, why) in enumerate(tests, 1):
        print('%sok %d - %s' % ('' if ok else 'not ', i, desc))
        if not ok and why:
            print('# ' + why)
    return 0


if __name__ == '__main__':
    sys.exit(main())
