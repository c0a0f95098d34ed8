/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.memory;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.testing.CountingRegistrar;
import io.rdmashuffle.testing.FileDescriptors;
import io.rdmashuffle.testing.Patterns;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RegisteredFileTest {
  @TempDir Path dir;
  private final CountingRegistrar registrar = new CountingRegistrar();

  @Test
  void aFileLargerThan2GiBIsRegisteredInPiecesAndReadAcrossThem() throws Exception {
    Path p = dir.resolve("big");
    long length = (5L << 29) + 12345; // 2.5 GiB, sparse
    try (RandomAccessFile f = new RandomAccessFile(p.toFile(), "rw")) {
      f.setLength(length);
      f.seek((1L << 31) - 2);
      f.write(new byte[] {1, 2, 3, 4});
      f.seek(length - 1);
      f.write(9);
    }
    try (RegisteredFile rf = RegisteredFile.open(p, 1L << 30, registrar, "app")) {
      assertEquals(3, rf.pieces().size());
      assertEquals(length, rf.length());
      assertEquals(length, registrar.accounting().registeredBytes());
      ByteBuffer dst = ByteBuffer.allocate(4);
      rf.read((1L << 31) - 2, dst);
      assertArrayEquals(new byte[] {1, 2, 3, 4}, dst.array(), "a read across the 2 GiB boundary");
      ByteBuffer last = ByteBuffer.allocate(1);
      rf.read(length - 1, last);
      assertEquals(9, last.get(0));
      assertThrows(IllegalArgumentException.class, () -> rf.read(length, ByteBuffer.allocate(1)));
      RegisteredFileDescriptor d = rf.descriptor();
      assertEquals(3, d.pieces().size());
      assertEquals(length - (2L << 30), d.pieces().get(2).length());
    }
    assertEquals(0, registrar.accounting().registeredBytes());
    assertEquals(3, registrar.deregistrations.get());
  }

  @Test
  void closeUnmapsAndReleasesTheFileDescriptorOnlyAfterInFlightReads() throws Exception {
    Path p = Patterns.file(dir.resolve("f"), 3 * 65536 + 7, 3);
    int fds = FileDescriptors.openOn(p);
    RegisteredFile rf = RegisteredFile.open(p, 65536, registrar, "app");
    assertEquals(fds + 1, FileDescriptors.openOn(p));
    RegisteredRegion piece = rf.pieces().get(1);
    assertTrue(piece.tryRetain(), "a READ being served");
    rf.close();
    assertFalse(piece.isOpen());
    assertEquals(fds + 1, FileDescriptors.openOn(p), "still open for the in-flight READ");
    assertEquals(Patterns.at(65536, 3), piece.memory().buffer().get(0), "mapping still readable");
    piece.release();
    assertEquals(fds, FileDescriptors.openOn(p));
    assertThrows(IllegalStateException.class, () -> rf.read(0, ByteBuffer.allocate(1)));
    rf.close();
  }

  @Test
  void aRetainedFileStaysMappedAfterCloseUntilItsLastRelease() throws Exception {
    Path p = Patterns.file(dir.resolve("held"), 2 * 65536, 6);
    int fds = FileDescriptors.openOn(p);
    RegisteredFile rf = RegisteredFile.open(p, 65536, registrar, "app");
    assertEquals(3, rf.refCnt(), "the owner's reference and one per registered piece");
    assertTrue(rf.tryRetain());
    rf.close();
    assertEquals(
        0, registrar.accounting().registeredBytes(), "close withdrew and freed the pieces");
    assertEquals(1, rf.refCnt());
    assertFalse(rf.tryRetain(), "no new holder after close");
    assertEquals(fds + 1, FileDescriptors.openOn(p), "still mapped for its holder");
    assertTrue(rf.release(), "the holder's release unmaps");
    assertEquals(fds, FileDescriptors.openOn(p));
    assertThrows(IllegalStateException.class, rf::release);
    assertEquals(0, rf.refCnt());
  }

  @Test
  void aFailedRegistrationClosesWhatWasBuilt() throws Exception {
    Path p = Patterns.file(dir.resolve("g"), 65536, 4);
    int fds = FileDescriptors.openOn(p);
    registrar.refuse = true;
    assertThrows(
        RegistrationException.class, () -> RegisteredFile.open(p, 65536, registrar, "app"));
    assertEquals(fds, FileDescriptors.openOn(p));
  }

  @Test
  void anEmptyFileHasNoPieces() throws Exception {
    Path p = Patterns.file(dir.resolve("empty"), 0, 5);
    try (RegisteredFile rf = RegisteredFile.open(p, 65536, registrar, "app")) {
      assertEquals(0, rf.pieces().size());
      assertEquals(0, rf.descriptor().pieces().size());
    }
  }

  @Test
  void aPieceSizeThatIsNotPageAlignedIsRejected() {
    assertThrows(
        IllegalArgumentException.class,
        () -> RegisteredFile.open(dir.resolve("x"), 5000, registrar, "app"));
  }
}
