/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs.disni;

import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvPd;
import com.ibm.disni.verbs.SVCRegMr;
import io.rdmashuffle.memory.FileMapper;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How served files are mapped to be pinned for remote READ: always from a descriptor open for
 * reading only, always read-only. Whether the kernel pins a read-only shared file mapping depends
 * on its {@code ib_umem_get}: Linux 6.1 pins every registration without local or remote write
 * access with {@code FOLL_WRITE | FOLL_FORCE}, and {@code check_vma_flags} refuses that (EFAULT)
 * for a shared mapping of a descriptor not open for writing (such a mapping has neither {@code
 * VM_WRITE} nor {@code VM_MAYWRITE}); from 6.2 on it pins read-only registrations without {@code
 * FOLL_WRITE}, the file's own pages. So the first registrar of a process probes it once, with one
 * page of a temporary file: where the kernel pins a shared read-only mapping, files are mapped so
 * ({@link FileMapper#SHARED}); where it does not, they are mapped read-only private ({@link
 * #PRIVATE}), which 6.1 pins by breaking copy-on-write: the pages pinned are private copies of the
 * file's (as much memory as pinning the file's own pages, plus a copy at registration) and the file
 * is never written.
 */
final class FileMappings {
  private static final Logger LOG = LoggerFactory.getLogger(FileMappings.class);

  /** {@code PROT_READ, MAP_PRIVATE}, through our native library (java.nio can't map it). */
  static final FileMapper PRIVATE =
      new FileMapper() {
        @Override
        public ByteBuffer map(FileChannel channel, long offset, int size) throws IOException {
          return NativeExtras.mapPrivateReadOnly(channel, offset, size);
        }

        @Override
        public void unmap(ByteBuffer mapping) {
          int rc = NativeExtras.unmapFile(mapping);
          if (rc != 0) {
            LOG.warn("munmap of a served file's mapping failed: errno {}", -rc);
          }
        }

        @Override
        public boolean copies() {
          return true;
        }

        @Override
        public String toString() {
          return "private read-only (pinning copies the pages)";
        }
      };

  private static FileMapper probed;

  private FileMappings() {}

  /**
   * The mapping this kernel pins for remote READ, probed once per process in {@code pd} (a page of
   * a temporary file, registered and deregistered at once).
   */
  static synchronized FileMapper forPinning(IbvPd pd) {
    if (probed == null) {
      String refused = probeShared(pd);
      probed = refused == null ? FileMapper.SHARED : PRIVATE;
      if (refused != null) {
        LOG.info(
            "the kernel pins no read-only shared file mapping for the NIC ({}): served files are"
                + " mapped {}",
            refused,
            PRIVATE);
      } else {
        LOG.debug("the kernel pins read-only shared file mappings: served files are mapped so");
      }
    }
    return probed;
  }

  /** Null when a read-only shared mapping of a file could be registered, else why not. */
  private static String probeShared(IbvPd pd) {
    Path file;
    try {
      file = Files.createTempFile("rdma-shuffle-pin-probe", ".bin");
    } catch (IOException | RuntimeException e) {
      return "no temporary file to probe with: " + e;
    }
    try {
      Files.write(file, new byte[4096]);
      return probeShared(pd, file);
    } catch (IOException | RuntimeException e) {
      return e.getMessage();
    } finally {
      try {
        Files.deleteIfExists(file);
      } catch (IOException e) {
        LOG.debug("could not delete {}: {}", file, e.toString());
      }
    }
  }

  private static String probeShared(IbvPd pd, Path file) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      ByteBuffer page = FileMapper.SHARED.map(ch, 0, 4096);
      try {
        SVCRegMr call = pd.regMr(page, IbvMr.IBV_ACCESS_REMOTE_READ);
        try {
          call.execute().getMr().deregMr().execute().free();
        } finally {
          call.free();
        }
        return null;
      } finally {
        FileMapper.SHARED.unmap(page);
      }
    }
  }
}
