package io.rdmashuffle.serve;

import io.rdmashuffle.config.TransportKind;
import io.rdmashuffle.mapoutput.LocateAnswer;
import io.rdmashuffle.mapoutput.LocateAnswer.Located;
import io.rdmashuffle.mapoutput.LocateLayout;
import io.rdmashuffle.mapoutput.LocateRequest;
import io.rdmashuffle.transport.PeerAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Answers "where do I READ these map outputs?" for the peers of admitted applications, from an
 * {@link OutputCatalog}: the serving half of the one wire description of where to READ. Spark
 * readers reach it as a transport call; the MapReduce service calls {@link #answer} for requests
 * that arrive on the stock shuffle's port. Thread-safe.
 */
public final class LocateService {
  private final OutputCatalog catalog;
  private final TransportKind transport;
  private final PeerAddress responder;

  /**
   * @param transport the transport that serves the READs
   * @param responder where readers READ (the transport's address)
   */
  public LocateService(OutputCatalog catalog, TransportKind transport, PeerAddress responder) {
    this.catalog = catalog;
    this.transport = transport;
    this.responder = responder;
  }

  /** The answer for {@code application}, whose peer's connection proved it. */
  public LocateAnswer answer(String application, LocateRequest request) {
    List<Located> out = new ArrayList<>(request.maps().size());
    for (int i = 0; i < request.maps().size(); i++) {
      out.add(
          catalog.locate(
              request.id(application, i),
              request.startPartition(),
              request.endPartition(),
              request.localPaths()));
    }
    return new LocateAnswer(transport, responder, out);
  }

  /**
   * Decodes a request, answers it and encodes the answer.
   *
   * @throws IllegalArgumentException when the request is not a valid one (the message names the
   *     field)
   */
  public ByteBuffer answer(String application, ByteBuffer request) {
    return LocateLayout.encode(answer(application, LocateLayout.decodeRequest(request)));
  }
}
