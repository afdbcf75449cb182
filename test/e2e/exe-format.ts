/**
 * Reading an executable's format and its injected SEA blob by the published
 * layouts (ELF: the System V ABI; PE: Microsoft's PE/COFF specification), the
 * way the loader and Node find them: on ELF, a PT_NOTE segment with a note
 * named NODE_SEA_BLOB; on Windows, an RT_RCDATA resource named NODE_SEA_BLOB.
 * Independent of postject and of the build: a wrong machine, a missing
 * resource or an unflipped fuse fails here whatever the build believes.
 */

/** Node's SEA blob begins with this magic number (little-endian uint32). */
export const SEA_MAGIC = 0x0143da20;
/** The fuse Node checks before it looks for the blob: `…:1` once a blob is injected. */
export const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

export const EM_X86_64 = 62;
export const EM_AARCH64 = 183;
export const IMAGE_FILE_MACHINE_AMD64 = 0x8664;

export interface ElfInfo {
  machine: number;
  /** The descriptor of the note named NODE_SEA_BLOB, or undefined. */
  blob?: Buffer;
}

/** An ELF64 little-endian executable's machine and SEA note (throws when `b` is not one). */
export function readElf(b: Buffer): ElfInfo {
  if (b.readUInt32BE(0) !== 0x7f454c46) throw new Error('not an ELF file');
  if (b[4] !== 2 || b[5] !== 1) throw new Error('not a 64-bit little-endian ELF file');
  const type = b.readUInt16LE(16);
  if (type !== 2 && type !== 3) throw new Error(`ELF type ${type} is not an executable`);
  const machine = b.readUInt16LE(18);
  const phoff = Number(b.readBigUInt64LE(32));
  const phentsize = b.readUInt16LE(54);
  const phnum = b.readUInt16LE(56);
  let blob: Buffer | undefined;
  for (let i = 0; i < phnum; i++) {
    const ph = phoff + i * phentsize;
    if (b.readUInt32LE(ph) !== 4 /* PT_NOTE */) continue;
    const offset = Number(b.readBigUInt64LE(ph + 8));
    const end = offset + Number(b.readBigUInt64LE(ph + 32));
    for (let n = offset; n + 12 <= end; ) {
      const namesz = b.readUInt32LE(n);
      const descsz = b.readUInt32LE(n + 4);
      const name = b
        .subarray(n + 12, n + 12 + namesz)
        .toString('latin1')
        .replace(/\0+$/, '');
      const desc = n + 12 + align(namesz, 4);
      if (name === 'NODE_SEA_BLOB') blob = b.subarray(desc, desc + descsz);
      n = desc + align(descsz, 4);
    }
  }
  return { machine, blob };
}

const align = (n: number, to: number) => Math.ceil(n / to) * to;

export interface PeInfo {
  machine: number;
  /** PE32+ (0x20b) or PE32 (0x10b). */
  optionalMagic: number;
  /** 3: Windows console. */
  subsystem: number;
  /** The certificate table (Authenticode signature): file offset and size, 0 and 0 when unsigned. */
  certificates: { offset: number; size: number };
  /** The RT_RCDATA resource named NODE_SEA_BLOB, or undefined. */
  blob?: Buffer;
}

/** A PE image's machine, subsystem and SEA resource (throws when `b` is not one). */
export function readPe(b: Buffer): PeInfo {
  if (b.toString('latin1', 0, 2) !== 'MZ') throw new Error('no MZ header');
  const pe = b.readUInt32LE(0x3c);
  if (b.toString('latin1', pe, pe + 4) !== 'PE\0\0') throw new Error('no PE signature');
  const coff = pe + 4;
  const machine = b.readUInt16LE(coff);
  const sections = b.readUInt16LE(coff + 2);
  const optSize = b.readUInt16LE(coff + 16);
  const opt = coff + 20;
  const optionalMagic = b.readUInt16LE(opt);
  const subsystem = b.readUInt16LE(opt + 68);
  const dirs = opt + (optionalMagic === 0x20b ? 112 : 96);
  const resourceRva = b.readUInt32LE(dirs + 2 * 8); // IMAGE_DIRECTORY_ENTRY_RESOURCE
  const certificates = { offset: b.readUInt32LE(dirs + 4 * 8), size: b.readUInt32LE(dirs + 4 * 8 + 4) }; // IMAGE_DIRECTORY_ENTRY_SECURITY
  const table = opt + optSize;
  const toOffset = (rva: number): number => {
    for (let i = 0; i < sections; i++) {
      const s = table + i * 40;
      const va = b.readUInt32LE(s + 12);
      const size = Math.max(b.readUInt32LE(s + 8), b.readUInt32LE(s + 16));
      if (rva >= va && rva < va + size) return rva - va + b.readUInt32LE(s + 20);
    }
    throw new Error(`RVA ${rva} is in no section`);
  };
  if (!resourceRva) return { machine, optionalMagic, subsystem, certificates };
  const base = toOffset(resourceRva);
  /** The entries of the resource directory at `dir` (offsets relative to the resource section). */
  const entries = (dir: number) => {
    const at = base + dir;
    const count = b.readUInt16LE(at + 12) + b.readUInt16LE(at + 14);
    return Array.from({ length: count }, (_, i) => {
      const e = at + 16 + i * 8;
      const nameField = b.readUInt32LE(e);
      const target = b.readUInt32LE(e + 4);
      let name: string | number = nameField;
      if (nameField & 0x80000000) {
        const s = base + (nameField & 0x7fffffff);
        name = b.toString('utf16le', s + 2, s + 2 + 2 * b.readUInt16LE(s));
      }
      return { name, subdir: (target & 0x80000000) !== 0, offset: target & 0x7fffffff };
    });
  };
  const rcdata = entries(0).find((e) => e.name === 10 /* RT_RCDATA */ && e.subdir);
  const named = rcdata && entries(rcdata.offset).find((e) => e.name === 'NODE_SEA_BLOB' && e.subdir);
  const lang = named && entries(named.offset).find((e) => !e.subdir);
  if (!lang) return { machine, optionalMagic, subsystem, certificates };
  const data = base + lang.offset;
  const at = toOffset(b.readUInt32LE(data));
  return { machine, optionalMagic, subsystem, certificates, blob: b.subarray(at, at + b.readUInt32LE(data + 4)) };
}

/** Whether the SEA fuse of `b` is flipped (`:1`), not flipped (`:0`), or absent. */
export function fuseState(b: Buffer): 'flipped' | 'unflipped' | 'absent' {
  const at = b.indexOf(`${SEA_FUSE}:`);
  if (at < 0) return 'absent';
  return b[at + SEA_FUSE.length + 1] === 0x31 ? 'flipped' : 'unflipped';
}
