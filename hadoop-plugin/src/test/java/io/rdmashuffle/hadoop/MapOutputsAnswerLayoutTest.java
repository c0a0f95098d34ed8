package io.rdmashuffle.hadoop;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.config.TransportKind;
import io.rdmashuffle.memory.RegionDescriptor;
import io.rdmashuffle.memory.RegisteredFileDescriptor;
import io.rdmashuffle.transport.PeerAddress;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class MapOutputsAnswerLayoutTest {
  private static final RegisteredFileDescriptor FILE = new RegisteredFileDescriptor(
      3000, 2048, List.of(new RegionDescriptor(1L << 40, 2048, 77), new RegionDescriptor(5L << 40, 952, 78)));

  private static MapOutputsAnswer answer() {
    return new MapOutputsAnswer(TransportKind.TCP, 3, new PeerAddress("node-7.example", 40123),
        List.of(MapOutputsAnswer.Entry.ok("attempt_1_0001_m_000000_0", 100, 9000, 2900, FILE),
            MapOutputsAnswer.Entry.failed("attempt_1_0001_m_000001_0",
                MapOutputsAnswer.Status.NOT_FOUND, "no output here")));
  }

  @Test
  void encodesAndDecodesEveryField() {
    MapOutputsAnswer a = answer();
    byte[] bytes = MapOutputsAnswerLayout.encode(a);
    assertEquals(MapOutputsAnswerLayout.MAGIC, ByteBuffer.wrap(bytes).getInt(MapOutputsAnswerLayout.MAGIC_OFFSET));
    MapOutputsAnswer b = MapOutputsAnswerLayout.decode(bytes);
    assertEquals(a.transport(), b.transport());
    assertEquals(a.reduce(), b.reduce());
    assertEquals(a.responder(), b.responder());
    MapOutputsAnswer.Entry ok = b.entries().get(0);
    assertEquals(100, ok.startOffset());
    assertEquals(9000, ok.rawLength());
    assertEquals(2900, ok.partLength());
    assertEquals(FILE.pieces(), ok.file().pieces());
    assertEquals(MapOutputsAnswer.Status.NOT_FOUND, b.entries().get(1).status());
    assertEquals("no output here", b.entries().get(1).message());
  }

  @Test
  void rejectsWhatIsNotAnAnswerNamingTheField() {
    byte[] good = MapOutputsAnswerLayout.encode(answer());
    byte[] magic = good.clone();
    magic[0] = 'H';
    assertMessage("magic=", magic);
    byte[] version = good.clone();
    version[MapOutputsAnswerLayout.VERSION_OFFSET + 1] = 9;
    assertMessage("version=9", version);
    byte[] kind = good.clone();
    kind[MapOutputsAnswerLayout.KIND_OFFSET + 1] = 7;
    assertMessage("kind=7", kind);
    assertMessage("truncated", Arrays.copyOf(good, good.length - 3));
    assertMessage("after the last entry", Arrays.copyOf(good, good.length + 1));
    assertMessage("shorter than its header", new byte[5]);
  }

  @Test
  void aSegmentMustLieInsideItsFile() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> MapOutputsAnswer.Entry.ok("m", 2000, 10, 1001, FILE));
    assertTrue(e.getMessage().contains("part length=1001"), e.getMessage());
    assertThrows(IllegalArgumentException.class,
        () -> MapOutputsAnswer.Entry.ok("m", -1, 10, 10, FILE));
    assertThrows(IllegalArgumentException.class,
        () -> new MapOutputsAnswer.Entry("m", MapOutputsAnswer.Status.OK, 0, 0, 0, null, ""));
    assertThrows(IllegalArgumentException.class,
        () -> new MapOutputsAnswer.Entry("m", MapOutputsAnswer.Status.REFUSED, 0, 0, 5, null, ""));
  }

  private static void assertMessage(String part, byte[] bytes) {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> MapOutputsAnswerLayout.decode(bytes));
    assertTrue(e.getMessage().contains(part), e.getMessage());
  }
}
