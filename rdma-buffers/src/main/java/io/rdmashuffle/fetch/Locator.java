package io.rdmashuffle.fetch;

import io.rdmashuffle.mapoutput.LocateAnswer;
import io.rdmashuffle.mapoutput.LocateRequest;
import io.rdmashuffle.transport.PeerAddress;
import java.util.concurrent.CompletableFuture;

/**
 * Asks the process that serves some map outputs where to READ them: the reading half of the one
 * wire description of where to READ ({@link LocateRequest}, {@link LocateAnswer}). Spark executors
 * ask over a transport call; implementations must not block the caller.
 */
@FunctionalInterface
public interface Locator {
  /**
   * @return the answer, or a future that fails with a {@code TransportException} when the owner
   *     can't be asked (unreachable, refused, timed out)
   */
  CompletableFuture<LocateAnswer> locate(
      PeerAddress owner, String application, LocateRequest request);
}
