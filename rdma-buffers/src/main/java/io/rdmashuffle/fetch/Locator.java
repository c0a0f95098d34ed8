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

  /**
   * The largest answer this locator takes ({@code call.maxAnswerBytes} of a transport call): the
   * reader sizes its requests to fit it ({@link io.rdmashuffle.mapoutput.LocateLayout}'s planned
   * sizes). Without a bound of its own (a locator in the serving process), only the owner's bound
   * applies: it answers a prefix of what would not fit and the reader asks again for the rest.
   */
  default long maxAnswerBytes() {
    return Long.MAX_VALUE;
  }
}
