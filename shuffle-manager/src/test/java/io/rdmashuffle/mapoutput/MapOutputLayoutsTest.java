package io.rdmashuffle.mapoutput;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.memory.RegionDescriptor;
import io.rdmashuffle.memory.RegisteredFileDescriptor;
import io.rdmashuffle.transport.PeerAddress;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class MapOutputLayoutsTest {
  private static final DescriptorSeal SEAL =
      new DescriptorSeal("application-secret-0123456789".getBytes(java.nio.charset.StandardCharsets.UTF_8));

  private static MapOutputDescriptor descriptor(int partitions) {
    RegisteredFileDescriptor meta = new RegisteredFileDescriptor(
        MapOutputMetaLayout.fileLength(partitions), 1 << 20,
        List.of(new RegionDescriptor(4096, MapOutputMetaLayout.fileLength(partitions), 77)));
    RegisteredFileDescriptor data = new RegisteredFileDescriptor(3L << 20, 1 << 20, List.of(
        new RegionDescriptor(1L << 32, 1 << 20, 1), new RegionDescriptor(2L << 32, 1 << 20, 2),
        new RegionDescriptor(3L << 32, 1 << 20, 3)));
    return new MapOutputDescriptor(7, 123456789012L, 0x1234_5678_9abc_def0L, partitions,
        ChecksumAlgorithm.ADLER32, new PeerAddress("10.0.0.1", 4242), meta, data,
        "/tmp/blockmgr-1/0c/shuffle_7_123456789012_0.data");
  }

  @Test
  void descriptorSurvivesItsTextForm() {
    MapOutputDescriptor d = descriptor(3000);
    String text = d.toText(SEAL);
    assertTrue(MapOutputDescriptor.isText(text));
    MapOutputDescriptor back = MapOutputDescriptor.fromText(text, SEAL);
    assertArrayEquals(d.encode(), back.encode());
    assertEquals(d.nonce(), back.nonce());
    assertEquals(d.dataPath(), back.dataPath());
    assertEquals(ChecksumAlgorithm.ADLER32, back.checksum());
    // Spark writes topologyInfo with writeUTF: it must stay far below 64 KiB
    assertTrue(text.length() < 600, text.length() + " characters");
  }

  @Test
  void emptyDescriptorCarriesNoRegistration() {
    MapOutputDescriptor d = MapOutputDescriptor.empty(1, 2, 3, 40);
    MapOutputDescriptor back = MapOutputDescriptor.fromText(d.toText(SEAL), SEAL);
    assertTrue(back.isEmpty());
    assertEquals(40, back.partitions());
    assertEquals(MapOutputDescriptor.FIXED_BYTES, d.encode().length);
  }

  @Test
  void malformedDescriptorsAreRejectedNamingTheField() {
    assertFalse(MapOutputDescriptor.isText("rack-1"));
    assertThrows(IllegalArgumentException.class,
        () -> MapOutputDescriptor.fromText("rack-1", SEAL));
    byte[] bytes = descriptor(4).encode();
    bytes[0] = 9;
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> MapOutputDescriptor.decode(bytes));
    assertTrue(e.getMessage().startsWith("map output descriptor version=9"), e.getMessage());
    byte[] cut = Arrays.copyOf(descriptor(4).encode(), 60);
    assertThrows(IllegalArgumentException.class, () -> MapOutputDescriptor.decode(cut));
  }

  @Test
  void onlyThisApplicationsSecretOpensADescriptorAndChangesAreDetected() {
    MapOutputDescriptor d = descriptor(8);
    String text = d.toText(SEAL);
    assertNotEquals(text, d.toText(SEAL), "each seal has its own nonce");
    DescriptorSeal other = new DescriptorSeal(
        "another-application-secret".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> MapOutputDescriptor.fromText(text, other));
    assertTrue(e.getMessage().contains("not sealed with this application's secret"));
    char[] c = text.toCharArray();
    int i = MapOutputDescriptor.TEXT_PREFIX.length() + 20;
    c[i] = c[i] == 'A' ? 'B' : 'A';
    assertThrows(IllegalArgumentException.class,
        () -> MapOutputDescriptor.fromText(new String(c), SEAL));
    // the printed form shows no plain bytes of the descriptor (its data path, for one)
    assertFalse(text.contains(java.util.Base64.getUrlEncoder().withoutPadding()
        .encodeToString("/tmp/blockmgr".getBytes(java.nio.charset.StandardCharsets.UTF_8))
        .substring(0, 12)));
  }

  @Test
  void descriptorStringLeavesCapabilitiesOut() {
    String s = descriptor(4).toString();
    assertFalse(s.contains("4294967296"), s);
    assertFalse(s.contains("rkey"), s);
  }

  @Test
  void metaEntriesGiveEachPartitionsRangeAndChecksum() {
    long[] lengths = {10, 0, 25, 5, 0};
    int[] sums = {1, 2, 3, 4, 5};
    long nonce = 99;
    ByteBuffer meta = MapOutputMetaLayout.write(3, 8, nonce, ChecksumAlgorithm.CRC32C, lengths,
        sums);
    assertEquals(MapOutputMetaLayout.fileLength(5), meta.capacity());
    // partitions [2, 4): entries 1..3
    ByteBuffer entries = meta.duplicate()
        .position(MapOutputMetaLayout.entriesOffset(2))
        .limit(MapOutputMetaLayout.entriesOffset(2) + MapOutputMetaLayout.entriesLength(2, 4))
        .slice();
    MapOutputMetaLayout.Ranges r = MapOutputMetaLayout.parse(entries, 2, 4, nonce, 40);
    assertEquals(10, r.startOf(2));
    assertEquals(35, r.endOf(2));
    assertEquals(35, r.startOf(3));
    assertEquals(40, r.endOf(3));
    assertEquals(4, r.checksumOf(3));
    // partition 0 starts at 0 with no entry before it
    ByteBuffer first = meta.duplicate().position(MapOutputMetaLayout.entriesOffset(0)).slice();
    MapOutputMetaLayout.Ranges r0 = MapOutputMetaLayout.parse(first, 0, 1, nonce, 40);
    assertEquals(0, r0.startOf(0));
    assertEquals(10, r0.endOf(0));
  }

  @Test
  void entriesOfAnotherMapOutputFailTheTagCheck() {
    ByteBuffer meta = MapOutputMetaLayout.write(3, 8, 1, ChecksumAlgorithm.NONE,
        new long[] {5, 5}, null);
    ByteBuffer entries = meta.duplicate().position(MapOutputMetaLayout.HEADER_BYTES).slice();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> MapOutputMetaLayout.parse(entries, 0, 2, 2, 10));
    assertTrue(e.getMessage().contains("tag="), e.getMessage());
  }

  @Test
  void offsetsBeyondTheDataFileAreRejected() {
    ByteBuffer meta = MapOutputMetaLayout.write(3, 8, 1, ChecksumAlgorithm.NONE,
        new long[] {5, 50}, null);
    ByteBuffer entries = meta.duplicate().position(MapOutputMetaLayout.HEADER_BYTES).slice();
    assertThrows(IllegalArgumentException.class,
        () -> MapOutputMetaLayout.parse(entries, 0, 2, 1, 20));
  }

  @Test
  void headerIsCheckedAgainstTheDescriptor() {
    MapOutputDescriptor d = descriptor(4);
    ByteBuffer meta = MapOutputMetaLayout.write(d.shuffleId(), d.mapId(), d.nonce(),
        ChecksumAlgorithm.ADLER32, new long[4], new int[4]);
    MapOutputMetaLayout.validateHeader(meta, d);
    ByteBuffer other = MapOutputMetaLayout.write(d.shuffleId(), d.mapId(), d.nonce() + 1,
        ChecksumAlgorithm.ADLER32, new long[4], new int[4]);
    assertThrows(IllegalArgumentException.class, () -> MapOutputMetaLayout.validateHeader(other, d));
  }
}
