#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""Check that the hardware reference says what the hardware header defines.

Parses the hardware headers include/linux/ordma/ordma_{regs,admin,io}.h
and the firmware image formats (ordma_image.h) (enums, BIT() defines,
structure layouts) and the tables of
Documentation/ordma/hw-reference.rst, and compares:

  - every enum table of the document (command opcodes, command status,
    fatal codes, EQE types, QP types and states, WQE opcodes, CQE
    opcodes and status) with its enum, row by row, both ways;
  - the capability flag table with the ORDMA_DEV_CAP_* bits;
  - every structure size the document states ("``struct ordma_x``, N
    bytes", "N (``struct ordma_x``)") with the size of the structure;
  - the Offset/Size/Field tables of the query buffers with the layout of
    their structure.

With docutils installed, it also renders every Documentation/ordma/*.rst
file and fails on any warning (Sphinx's :doc: role and toctree directive
are accepted as they are).

Output is TAP, one result per check, mismatches as diagnostics.
Usage: doc-tables.py [REPO]
"""
import io
import os
import re
import sys

HEADER_DIR = 'include/linux/ordma'
# ordma_hw.h only includes these; io first, as ordma_admin.h includes it;
# then the firmware image and flash formats
HEADERS = ['ordma_regs.h', 'ordma_io.h', 'ordma_admin.h', 'ordma_image.h']
DOC = 'Documentation/ordma/hw-reference.rst'
DOC_DIR = 'Documentation/ordma'

TYPE_SIZES = {
    '__u8': 1, '__s8': 1,
    '__u16': 2, '__le16': 2, '__be16': 2,
    '__u32': 4, '__le32': 4, '__be32': 4,
    '__u64': 8, '__le64': 8, '__be64': 8,
}


# ------------------------------------------------------------------ header

def strip_comments(text):
    text = re.sub(r'/\*.*?\*/', lambda m: '\n' * m.group(0).count('\n'),
                  text, flags=re.S)
    return re.sub(r'//[^\n]*', '', text)


def c_int(expr, defines):
    """Value of a simple C integer expression of the header, or None."""
    expr = expr.strip()
    m = re.fullmatch(r'BIT(?:_ULL)?\((\w+)\)', expr)
    if m:
        bit = c_int(m.group(1), defines)
        return None if bit is None else 1 << bit
    m = re.fullmatch(r'(0x[0-9a-fA-F]+|\d+)[uUlL]*', expr)
    if m:
        return int(m.group(1), 0)
    if expr in defines:
        return defines[expr]
    return None


def parse_header(paths):
    text = '\n'.join(strip_comments(open(p, encoding='utf-8').read())
                     for p in paths)
    defines = {}
    for m in re.finditer(r'^#define\s+(\w+)\s+(.+)$', text, flags=re.M):
        value = c_int(m.group(2), defines)
        if value is not None:
            defines[m.group(1)] = value

    enums = {}
    for m in re.finditer(r'\benum\s+(\w+)\s*\{(.*?)\}\s*;', text, flags=re.S):
        members, value = [], -1
        for item in m.group(2).split(','):
            item = item.strip()
            if not item:
                continue
            name, _, expr = item.partition('=')
            value = c_int(expr, defines) if expr else value + 1
            members.append((name.strip(), value))
        enums[m.group(1)] = members

    structs = {}
    for m in re.finditer(r'\bstruct\s+(\w+)\s*\{', text):
        body, depth, i = [], 1, m.end()
        while depth:
            c = text[i]
            depth += {'{': 1, '}': -1}.get(c, 0)
            body.append(c)
            i += 1
        structs[m.group(1)] = ''.join(body[:-1])
    return defines, enums, structs


def layout(name, structs, defines, is_union=False, body=None):
    """(size, align, [(field, offset, size, element size)]) with the C
    rules of the ABI."""
    if body is None:
        body = structs[name]
    fields, offset, size, align = [], 0, 0, 1
    pos = 0
    while pos < len(body):
        m = re.compile(r'\s*(union|struct)\s*\{').match(body, pos)
        if m:                               # anonymous union / struct
            depth, i = 1, m.end()
            while depth:
                depth += {'{': 1, '}': -1}.get(body[i], 0)
                i += 1
            inner = body[m.end():i - 1]
            end = body.index(';', i)
            fsize, falign, sub = layout(None, structs, defines,
                                        m.group(1) == 'union', inner)
            name_part = body[i:end].strip()
            prefix = name_part + '.' if name_part else ''
            off = 0 if is_union else -(-offset // falign) * falign
            fields += [(prefix + f, off + o, s, e) for f, o, s, e in sub]
            if not is_union:
                offset = off + fsize
            size = max(size, fsize) if is_union else offset
            align = max(align, falign)
            pos = end + 1
            continue
        end = body.find(';', pos)
        if end < 0:
            break
        decl = body[pos:end].strip()
        pos = end + 1
        if not decl:
            continue
        m = re.fullmatch(r'(struct\s+\w+|\w+)\s+(\w+)\s*(?:\[(\w+)\])?', decl)
        if not m:
            raise ValueError('cannot parse "%s" in struct %s' % (decl, name))
        ctype, field, count = m.groups()
        if ctype.startswith('struct'):
            tsize, talign, sub = layout(ctype.split()[1], structs, defines)
        else:
            tsize = talign = TYPE_SIZES[ctype]
            sub = []
        n = c_int(count, defines) if count else 1
        off = 0 if is_union else -(-offset // talign) * talign
        fields.append((field, off, tsize * n, tsize))
        fields += [(field + '.' + f, off + o, s, e) for f, o, s, e in sub]
        if is_union:
            size = max(size, tsize * n)
        else:
            offset = off + tsize * n
            size = offset
        align = max(align, talign)
    size = -(-size // align) * align
    return size, align, fields


# ------------------------------------------------------------------ document

def plain(cell):
    """A table cell as text: markup of literals and references removed."""
    cell = re.sub(r'`([^`]*)`_', r'\1', cell)
    return re.sub(r'``([^`]*)``', r'\1', cell).strip()


def list_tables(lines):
    """Every list-table: (caption, section title, header, rows)."""
    tables = []
    section = ''
    i = 0
    while i < len(lines):
        line = lines[i]
        if (i + 1 < len(lines) and re.fullmatch(r'([=~\-^])\1{3,}', lines[i + 1])
                and line.strip() and not line.startswith(' ')):
            section = line.strip()
        m = re.match(r'(\s*)\.\. list-table::\s*(.*)$', line)
        if not m:
            i += 1
            continue
        caption = plain(m.group(2))
        indent = len(m.group(1))
        rows, row, cell = [], None, None
        i += 1
        while i < len(lines):
            line = lines[i]
            if line.strip() and len(line) - len(line.lstrip()) <= indent:
                break
            s = line.strip()
            if s.startswith(':'):
                pass
            elif s.startswith('* -') or s == '*' or s == '* -':
                row = [s[3:].strip()]
                rows.append(row)
            elif s.startswith('- ') or s == '-':
                row.append(s[2:].strip())
            elif s and row is not None:
                row[-1] += ' ' + s
            i += 1
        header = [plain(c) for c in rows[0]] if rows else []
        body = [[plain(c) for c in r] for r in rows[1:]]
        tables.append((caption, section, header, body))
    return tables


def find_table(tables, caption=None, section=None, header0=None):
    for cap, sec, header, rows in tables:
        if caption is not None and not cap.startswith(caption):
            continue
        if section is not None and sec != section:
            continue
        if header0 is not None and (not header or header[0] != header0):
            continue
        return header, rows
    return None, None


def doc_pairs(rows, name_col, value_col, prefix):
    """(name, value) pairs of a table; a value "a .. b" spans the names of
    its row in order."""
    pairs = []
    for row in rows:
        if len(row) <= max(name_col, value_col):
            continue
        names = re.findall(r'\b' + prefix + r'\w+', row[name_col])
        values = re.findall(r'0x[0-9a-fA-F]+|\d+', row[value_col])
        if not names or not values:
            continue
        first = int(values[0], 0)
        if '..' in row[value_col] and len(values) == 2:
            span = list(range(first, int(values[1], 0) + 1))
            if len(span) != len(names):
                pairs.append((row[name_col], None))
                continue
            pairs += list(zip(names, span))
        else:
            pairs.append((names[0], first))
    return pairs


# ------------------------------------------------------------------ checks

class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0
        print('TAP version 13')

    def result(self, ok, desc, diag=()):
        self.n += 1
        if not ok:
            self.failed += 1
        print('%s %d - %s' % ('ok' if ok else 'not ok', self.n, desc))
        for line in diag:
            print('# ' + line)

    def skip(self, desc, why):
        self.n += 1
        print('ok %d - %s # SKIP %s' % (self.n, desc, why))

    def done(self):
        print('1..%d' % self.n)
        return 1 if self.failed else 0


def compare_pairs(doc, hdr):
    """Mismatching rows: document rows the header lacks, header entries the
    document lacks or gives another value."""
    diag = []
    hdr_map = dict(hdr)
    doc_map = {}
    for name, value in doc:
        if value is None:
            diag.append('document: range row does not match its names: %s'
                        % name)
            continue
        doc_map[name] = value
        if name not in hdr_map:
            diag.append('document: %s = %#x, not in the header'
                        % (name, value))
        elif hdr_map[name] != value:
            diag.append('document: %s = %#x, header: %#x'
                        % (name, value, hdr_map[name]))
    for name, value in hdr:
        if name not in doc_map:
            diag.append('header: %s = %#x, missing from the document'
                        % (name, value))
    return diag


ENUM_TABLES = [
    # description, enum, how to find the table, name column, value column,
    # name prefix
    ('command opcodes', 'ordma_cmd_opcode',
     dict(section='Summary', header0='Opcode'), 1, 0, 'ORDMA_CMD_'),
    ('command status codes', 'ordma_cmd_status',
     dict(section='Status codes', header0='Value'), 1, 0,
     'ORDMA_CMD_STATUS_'),
    ('fatal codes', 'ordma_fatal_code',
     dict(section='FATAL_CODE (0x018, RO)', header0='Value'), 1, 0,
     'ORDMA_FATAL_'),
    ('EQE types', 'ordma_eqe_type',
     dict(section='Event types', header0='Type'), 1, 0, 'ORDMA_EQE_'),
    ('QP types', 'ordma_qp_type',
     dict(section='Queue pairs', header0='Value'), 1, 0, 'ORDMA_QPT_'),
    ('QP states', 'ordma_qp_state',
     dict(section='QP states', header0='Value'), 1, 0, 'ORDMA_QPS_'),
    ('WQE opcodes', 'ordma_wqe_opcode',
     dict(caption='Opcodes (enum ordma_wqe_opcode)'), 1, 0, 'ORDMA_WQE_'),
    ('CQE opcodes', 'ordma_cqe_opcode',
     dict(caption='CQE opcodes'), 1, 0, 'ORDMA_CQE_OP_'),
    ('CQE status codes', 'ordma_cqe_status',
     dict(caption='Completion status'), 1, 0, 'ORDMA_CQE_'),
    ('receive drop reasons', 'ordma_roce_rx_drop',
     dict(caption='Receive drop reasons'), 1, 0, 'ORDMA_ROCE_RX_DROP_'),
    ('parse drop reasons', 'ordma_roce_parse_drop',
     dict(caption='Parse drop reasons'), 1, 0, 'ORDMA_ROCE_PARSE_'),
    ('transmit drop reasons', 'ordma_roce_tx_drop',
     dict(caption='Transmit drop reasons'), 1, 0, 'ORDMA_ROCE_TX_DROP_'),
    ('InfiniBand link drop reasons', 'ordma_ib_rx_drop',
     dict(caption='InfiniBand link drop reasons'), 1, 0, 'ORDMA_IB_RX_DROP_'),
]

# Query buffers: section of the document -> structure laid out there
STRUCT_TABLES = [
    ('Device capabilities', 'ordma_device_caps'),
    ('Port attributes', 'ordma_port_attr'),
    ('Port statistics', 'ordma_port_stats'),
    ('EQE format', 'ordma_eqe'),
    ('Descriptor', 'ordma_eth_desc'),
    ('Page lists', 'ordma_page_list'),
    ('Address vector', 'ordma_av'),
    ('Receive WQE', 'ordma_recv_wqe'),
    ('Scatter/gather entry', 'ordma_sge'),
    ('Completion queue entry', 'ordma_cqe'),
    ('Image header', 'ordma_image_header'),
    ('Flash header', 'ordma_flash_header'),
]


def check_enums(tap, tables, enums):
    for desc, enum, where, name_col, value_col, prefix in ENUM_TABLES:
        title = '%s: table matches enum %s' % (desc, enum)
        header, rows = find_table(tables, **where)
        if rows is None:
            tap.result(False, title, ['no such table in ' + DOC])
            continue
        if enum not in enums:
            tap.result(False, title, ['no enum %s in %s' % (enum, HEADER_DIR)])
            continue
        # the status table's prefix also matches the opcode names
        hdr = [(n, v) for n, v in enums[enum]]
        doc = doc_pairs(rows, name_col, value_col, prefix)
        if prefix == 'ORDMA_CQE_':
            doc = [(n, v) for n, v in doc if not n.startswith('ORDMA_CQE_OP_')]
        diag = compare_pairs(doc, hdr)
        tap.result(not diag, title, diag)


def check_cap_flags(tap, tables, defines):
    title = 'capability flags: table matches ORDMA_DEV_CAP_* bits'
    header, rows = find_table(tables, section='Capability flags',
                              header0='Bit')
    if rows is None:
        tap.result(False, title, ['no such table in ' + DOC])
        return
    hdr = [(n, v.bit_length() - 1) for n, v in defines.items()
           if n.startswith('ORDMA_DEV_CAP_')]
    diag = compare_pairs(doc_pairs(rows, 1, 0, 'ORDMA_DEV_CAP_'), hdr)
    tap.result(not diag, title, diag)


# Firmware headers whose limits QUERY_DEVICE reports (firmware/device/
# fw_caps.h), in include order
CAPS_HEADERS = ['firmware/fw_priv.h', 'firmware/objects/fw_verbs.h',
                'firmware/objects/fw_qp_tp_state.h',
                'firmware/transport/fw_transport.h', 'firmware/objects/fw_qp.h',
                'firmware/device/fw_caps.h']


def c_expr(expr, defines):
    """Value of a constant C expression built from defines, or None."""
    expr = re.sub(r'GENMASK(?:_ULL)?\((\w+),\s*(\w+)\)',
                  r'((1 << ((\1) + 1)) - (1 << (\2)))', expr)
    expr = re.sub(r'\b(0x[0-9a-fA-F]+|\d+)[uUlL]+\b', r'\1', expr)
    for _ in range(8):
        names = set(re.findall(r'\b[A-Za-z_]\w*\b', expr))
        if not names:
            break
        for name in names:
            if name not in defines:
                return None
            expr = re.sub(r'\b%s\b' % name, '(%s)' % defines[name], expr)
    if not re.fullmatch(r'[0-9a-fA-Fx()<>+\-*/| ]+', expr):
        return None
    try:
        return int(eval(expr, {'__builtins__': {}}))  # digits and operators only
    except (SyntaxError, ZeroDivisionError, TypeError):
        return None


def doc_number(cell):
    """The value a table cell starts with: 1024, 2^31, 0x7ffff000."""
    m = re.match(r'(\d+)\^(\d+)', cell)
    if m:
        return int(m.group(1)) ** int(m.group(2))
    m = re.match(r'(0x[0-9a-fA-F]+|\d+)\b', cell)
    if m:
        return int(m.group(1), 0)
    m = re.search(r'\b0x[0-9a-fA-F]+\b', cell)    # a mask after its words
    return int(m.group(0), 16) if m else None


def check_device_caps(tap, tables, repo, defines):
    """The Device capabilities table states what fw_caps.h derives."""
    title = 'device capabilities: table matches firmware/device/fw_caps.h'
    header, rows = find_table(tables, section='Device capabilities',
                              header0='Offset')
    if rows is None:
        tap.result(False, title, ['no such table in ' + DOC])
        return
    raw = dict(defines)
    text = '\n'.join(strip_comments(open(os.path.join(repo, p),
                                          encoding='utf-8').read())
                     for p in CAPS_HEADERS)
    text = re.sub(r'\\\n', ' ', text)
    for m in re.finditer(r'^#define\s+(\w+)\s+(.+)$', text, flags=re.M):
        value = c_expr(m.group(2), raw)
        if value is not None:
            raw[m.group(1)] = value
    diag, seen = [], 0
    for row in rows:
        if len(row) < 4:
            continue
        cap = 'FW_CAP_' + row[2].upper()
        if cap not in raw:
            continue
        seen += 1
        doc = doc_number(row[3])
        if doc != raw[cap]:
            diag.append('%s: the document says %s, %s is %s' %
                        (row[2], row[3][:40], cap, raw[cap]))
    caps = [n for n in raw if n.startswith('FW_CAP_')]
    if seen != len(caps):
        diag.append('%d FW_CAP_ values, %d of them in the table' %
                    (len(caps), seen))
    tap.result(not diag, title, diag)


def check_struct_sizes(tap, text, structs, defines):
    flat = re.sub(r'\s+', ' ', text)
    claims = []
    for m in re.finditer(r'``struct (ordma_\w+)``,? \(?(\d+) bytes', flat):
        claims.append((m.group(1), int(m.group(2)), m.group(0)))
    for m in re.finditer(r'\b(\d+) \(``struct (ordma_\w+)``\)', flat):
        claims.append((m.group(2), int(m.group(1)), m.group(0)))
    diag = []
    for name, size, where in claims:
        if name not in structs:
            diag.append('"%s": no struct %s in the header' % (where, name))
            continue
        real = layout(name, structs, defines)[0]
        if real != size:
            diag.append('"%s": sizeof(struct %s) is %d' % (where, name, real))
    tap.result(bool(claims) and not diag,
               'structure sizes stated in the document (%d) match the header'
               % len(claims), diag or ([] if claims else ['none found']))


def check_struct_tables(tap, tables, structs, defines):
    for section, name in STRUCT_TABLES:
        title = '%s: Offset/Field table matches struct %s' % (section, name)
        header, rows = find_table(tables, section=section, header0='Offset')
        if rows is None or 'Field' not in header:
            tap.result(False, title, ['no Offset/Field table in section'])
            continue
        size, _, fields = layout(name, structs, defines)
        top = {f: (o, s, e) for f, o, s, e in fields if '.' not in f}
        fcol = header.index('Field')
        scol = header.index('Size') if 'Size' in header else None
        diag, seen = [], set()
        for row in rows:
            m = re.fullmatch(r'(\w+)(?:\[(\d+)\])?', row[fcol])
            if not m or not row[0].isdigit():
                continue        # "sge[]" that follow, ranges, unions
            field, index = m.groups()
            if field not in top:
                diag.append('document: field %s at %s, not in the header'
                            % (row[fcol], row[0]))
                continue
            seen.add(field)
            off, fsize, elem = top[field]
            if index is not None:   # one element of an array
                off, fsize = off + int(index) * elem, elem
            if int(row[0]) != off:
                diag.append('document: %s at offset %s, header: %d'
                            % (field, row[0], off))
            if scol is not None and row[scol].isdigit() and \
                    int(row[scol]) != fsize:
                diag.append('document: %s size %s, header: %d'
                            % (field, row[scol], fsize))
        for field in top:
            if field not in seen:
                diag.append('header: field %s missing from the document'
                            % field)
        tap.result(not diag, title, diag)


def check_render(tap, repo):
    try:
        from docutils import nodes
        from docutils.core import publish_doctree
        from docutils.parsers.rst import Directive, directives, roles
    except ImportError:
        tap.skip('the documents render without warnings', 'no docutils')
        return

    def doc_role(name, rawtext, text, lineno, inliner, options=None,
                 content=None):
        return [nodes.literal(rawtext, text)], []

    class Toctree(Directive):
        has_content = True
        option_spec = {'maxdepth': directives.unchanged,
                       'caption': directives.unchanged}

        def run(self):
            return []

    roles.register_local_role('doc', doc_role)
    directives.register_directive('toctree', Toctree)
    for f in sorted(os.listdir(os.path.join(repo, DOC_DIR))):
        if not f.endswith('.rst'):
            continue
        path = os.path.join(DOC_DIR, f)
        out = io.StringIO()
        publish_doctree(open(os.path.join(repo, path), encoding='utf-8').read(),
                        source_path=path,
                        settings_overrides={'report_level': 2,
                                            'halt_level': 5,
                                            'warning_stream': out})
        msgs = out.getvalue().splitlines()
        tap.result(not msgs, '%s renders without warnings (docutils)' % path,
                   msgs[:40])


def main():
    repo = sys.argv[1] if len(sys.argv) > 1 else \
        os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..')
    tap = Tap()
    defines, enums, structs = parse_header(
        [os.path.join(repo, HEADER_DIR, h) for h in HEADERS])
    text = open(os.path.join(repo, DOC), encoding='utf-8').read()
    tables = list_tables(text.splitlines())
    check_enums(tap, tables, enums)
    check_cap_flags(tap, tables, defines)
    check_device_caps(tap, tables, repo, defines)
    check_struct_sizes(tap, text, structs, defines)
    check_struct_tables(tap, tables, structs, defines)
    check_render(tap, repo)
    return tap.done()


if __name__ == '__main__':
    sys.exit(main())
