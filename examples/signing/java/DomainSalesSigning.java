// The Java reference signer of the Domain Sales partner API (v1 request signatures and webhook
// signatures), JDK 17 standard library only. The recipe is spec/docs/signing.md. Copy the
// methods between "The protocol" and "The command line"; the rest proves them against the
// vectors and a live sandbox:
//   java DomainSalesSigning.java vectors spec/vectors/signing.json
//   java DomainSalesSigning.java request METHOD TARGET [BODY]      (SERVICE_BASE_URL, SERVICE_KEY_ID, SERVICE_SECRET)
//   java DomainSalesSigning.java verify-webhook SECRET SIGNATURE < body
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.InvalidKeyException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

public final class DomainSalesSigning {

  // ---- The protocol ----------------------------------------------------------------------

  /** The API answers such a query with 400 validation_error, so a signer refuses it too. */
  public static final class MalformedQueryException extends Exception {
    MalformedQueryException(String message) {
      super(message);
    }
  }

  static final String EMPTY_BODY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

  /** Strict UTF-8 both ways: lone surrogates, overlongs, encoded surrogates and truncations are errors. */
  static byte[] utf8(String text) throws MalformedQueryException {
    try {
      ByteBuffer b = StandardCharsets.UTF_8.newEncoder().encode(CharBuffer.wrap(text));
      return Arrays.copyOf(b.array(), b.limit());
    } catch (CharacterCodingException e) {
      throw new MalformedQueryException("not valid Unicode text: " + text);
    }
  }

  /** Decodes %XX escapes only ("+" stays a plus); the decoded bytes must be valid UTF-8. */
  static byte[] decodeComponent(String raw) throws MalformedQueryException {
    byte[] in = utf8(raw);
    byte[] out = new byte[in.length];
    int n = 0;
    for (int i = 0; i < in.length; i++) {
      if (in[i] != '%') {
        out[n++] = in[i];
        continue;
      }
      int hi = i + 1 < in.length ? Character.digit(in[i + 1], 16) : -1;
      int lo = i + 2 < in.length ? Character.digit(in[i + 2], 16) : -1;
      if (hi < 0 || lo < 0) throw new MalformedQueryException("bad escape at offset " + i + " of " + raw);
      out[n++] = (byte) (hi * 16 + lo);
      i += 2;
    }
    byte[] bytes = Arrays.copyOf(out, n);
    try { // newDecoder() reports malformed input instead of replacing it with U+FFFD
      StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes));
    } catch (CharacterCodingException e) {
      throw new MalformedQueryException("escapes of " + raw + " are not valid UTF-8");
    }
    return bytes;
  }

  /** UTF-8 bytes; only A-Z a-z 0-9 - _ . ~ literal, every other byte as uppercase %XX. */
  static String encodeComponent(byte[] utf8) {
    StringBuilder s = new StringBuilder();
    for (byte b : utf8) {
      int c = b & 0xff;
      if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
          || c == '-' || c == '_' || c == '.' || c == '~') s.append((char) c);
      else s.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
          .append(Character.toUpperCase(Character.forDigit(c & 15, 16)));
    }
    return s.toString();
  }

  /** Line 3, from the raw query after the first "?" (never a parsed query). */
  public static String canonicalQuery(String rawQuery) throws MalformedQueryException {
    List<byte[][]> pairs = new ArrayList<>();
    for (String part : rawQuery.split("&", -1)) {
      if (part.isEmpty()) continue;
      int eq = part.indexOf('=');
      String key = eq < 0 ? part : part.substring(0, eq);
      String value = eq < 0 ? "" : part.substring(eq + 1);
      pairs.add(new byte[][] {decodeComponent(key), decodeComponent(value)});
    }
    // Sort on the decoded UTF-8 bytes, i.e. by code point. String.compareTo compares UTF-16
    // units and would put U+1F600 before U+FF61.
    pairs.sort((a, b) -> {
      int byKey = Arrays.compareUnsigned(a[0], b[0]);
      return byKey != 0 ? byKey : Arrays.compareUnsigned(a[1], b[1]);
    });
    StringBuilder s = new StringBuilder();
    for (byte[][] p : pairs) {
      if (s.length() > 0) s.append('&');
      s.append(encodeComponent(p[0])).append('=').append(encodeComponent(p[1]));
    }
    return s.toString();
  }

  /** The six signed lines. path is the raw path as sent; body the exact bytes sent. */
  public static String canonicalString(String method, String path, String rawQuery, String timestamp,
      String nonce, byte[] body) throws MalformedQueryException {
    StringBuilder upper = new StringBuilder(method);
    for (int i = 0; i < upper.length(); i++) {
      char c = upper.charAt(i);
      if (c >= 'a' && c <= 'z') upper.setCharAt(i, (char) (c - 32));
    }
    String m = upper.toString();
    String bodyHash = m.equals("GET") || m.equals("HEAD") || body.length == 0 ? EMPTY_BODY_SHA256 : sha256Hex(body);
    return String.join("\n", m, path, canonicalQuery(rawQuery), timestamp, nonce, bodyHash);
  }

  static String sha256Hex(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  static String hmacHex(String secret, byte[] message) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
      return HexFormat.of().formatHex(mac.doFinal(message)); // lowercase
    } catch (NoSuchAlgorithmException | InvalidKeyException e) {
      throw new IllegalStateException(e);
    }
  }

  /** X-Service-Signature of a request: "v1=" + lowercase hex HMAC-SHA256 of the canonical string. */
  public static String signatureHeader(String secret, String canonical) {
    return "v1=" + hmacHex(secret, canonical.getBytes(StandardCharsets.UTF_8));
  }

  /** The four authentication headers of one attempt: fresh timestamp and nonce every time, retries included. */
  public static Map<String, String> signedHeaders(String keyId, String secret, String method, String path,
      String rawQuery, byte[] body) throws MalformedQueryException {
    String timestamp = Long.toString(System.currentTimeMillis() / 1000); // seconds, not milliseconds
    String nonce = UUID.randomUUID().toString(); // v4 from SecureRandom
    Map<String, String> h = new LinkedHashMap<>();
    h.put("X-Service-Key-Id", keyId);
    h.put("X-Service-Timestamp", timestamp);
    h.put("X-Service-Nonce", nonce);
    h.put("X-Service-Signature", signatureHeader(secret, canonicalString(method, path, rawQuery, timestamp, nonce, body)));
    return h;
  }

  /** A delivery's X-Service-Signature: lowercase hex HMAC-SHA256 of the raw body; no "v1=". */
  public static String webhookSignature(String secret, byte[] rawBody) {
    return hmacHex(secret, rawBody);
  }

  /** Verify the bytes as received, before parsing, in constant time; then deduplicate on the event id. */
  public static boolean verifyWebhook(String secret, byte[] rawBody, String header) {
    return !secret.isEmpty() && MessageDigest.isEqual(
        webhookSignature(secret, rawBody).getBytes(StandardCharsets.UTF_8), header.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * The delivery's "id" (the same as its X-Service-Event-Id header): delivery is at least once, so
   * remember the ids you have processed and skip a repeat. Parse only a body verifyWebhook accepted
   * (with your JSON library; the small reader below serves this file).
   */
  public static String eventId(byte[] rawBody) {
    Object event = new Json(new String(rawBody, StandardCharsets.UTF_8)).parse();
    return event instanceof Map<?, ?> map && map.get("id") instanceof String id ? id : null;
  }

  // ---- The command line --------------------------------------------------------------------

  public static void main(String[] args) throws Exception {
    String command = args.length > 0 ? args[0] : "";
    if (command.equals("vectors") && args.length == 2) {
      vectors(Path.of(args[1]));
    } else if (command.equals("request") && (args.length == 3 || args.length == 4)) {
      request(args[1], args[2], args.length == 4 ? args[3] : null);
    } else if (command.equals("verify-webhook") && args.length == 3) {
      byte[] body = System.in.readAllBytes();
      boolean valid = verifyWebhook(args[1], body, args[2]);
      System.out.println(valid ? "valid" : "invalid");
      if (valid) {
        try {
          System.err.println("event id " + eventId(body) + ": deduplicate on it");
        } catch (IllegalArgumentException notJson) {
          System.err.println("the body is not JSON");
        }
      }
      System.exit(valid ? 0 : 1);
    } else {
      System.err.println("usage: vectors signing.json | request METHOD TARGET [BODY] | verify-webhook SECRET SIGNATURE < body");
      System.exit(2);
    }
  }

  @SuppressWarnings("unchecked")
  static void vectors(Path file) throws IOException {
    Map<String, Object> doc = (Map<String, Object>) new Json(Files.readString(file)).parse();
    StringBuilder out = new StringBuilder();
    for (Object o : (List<Object>) doc.get("canonical_query")) {
      Map<String, String> c = (Map<String, String>) o;
      out.append(line("canonical_query", c.get("name"), queryOrRejected(c.get("query"))));
    }
    for (Object o : (List<Object>) doc.get("invalid_query")) {
      Map<String, String> c = (Map<String, String>) o;
      out.append(line("invalid_query", c.get("name"), queryOrRejected(c.get("query"))));
    }
    for (Object o : (List<Object>) doc.get("signatures")) {
      Map<String, String> c = (Map<String, String>) o;
      String result;
      try {
        result = signatureHeader(c.get("secret"), canonicalString(c.get("method"), c.get("path"), c.get("query"),
            c.get("timestamp"), c.get("nonce"), c.get("body").getBytes(StandardCharsets.UTF_8)));
      } catch (MalformedQueryException e) {
        result = "rejected";
      }
      out.append(line("signature", c.get("name"), result));
    }
    for (Object o : (List<Object>) doc.get("webhooks")) {
      Map<String, String> c = (Map<String, String>) o;
      out.append(line("webhook", c.get("name"), webhookSignature(c.get("secret"), c.get("body").getBytes(StandardCharsets.UTF_8))));
    }
    System.out.write(out.toString().getBytes(StandardCharsets.UTF_8));
    System.out.flush();
  }

  static String queryOrRejected(String query) {
    try {
      return canonicalQuery(query);
    } catch (MalformedQueryException e) {
      return "rejected";
    }
  }

  static String line(String kind, String name, String result) {
    return "{\"kind\":" + quote(kind) + ",\"name\":" + quote(name) + ",\"result\":" + quote(result) + "}\n";
  }

  static String quote(String s) {
    StringBuilder q = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') q.append('\\').append(c);
      else if (c < 0x20) q.append(String.format("\\u%04x", (int) c));
      else q.append(c);
    }
    return q.append('"').toString();
  }

  /** Signs and sends one request; prints the status, then the body. SIGN_BODY signs other bytes (tamper proof). */
  static void request(String method, String target, String body) throws Exception {
    String base = System.getenv().getOrDefault("SERVICE_BASE_URL", "").replaceAll("/+$", "");
    int q = target.indexOf('?');
    String path = q < 0 ? target : target.substring(0, q);
    String rawQuery = q < 0 ? "" : target.substring(q + 1);
    byte[] sent = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
    String signBody = System.getenv("SIGN_BODY");
    byte[] signed = signBody == null ? sent : signBody.getBytes(StandardCharsets.UTF_8);
    Map<String, String> headers = signedHeaders(System.getenv("SERVICE_KEY_ID"), System.getenv("SERVICE_SECRET"),
        method, path, rawQuery, signed);
    // URI.create keeps the escapes as given and HttpClient sends the raw path and query. A target
    // with characters that are illegal in a URI ("[", "]", a space) must be sent escaped.
    HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(base + target))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(sent));
    headers.forEach(builder::header);
    if (body != null) builder.header("Content-Type", "application/json");
    String idempotencyKey = System.getenv("IDEMPOTENCY_KEY");
    if (idempotencyKey != null && !idempotencyKey.isEmpty()) builder.header("Idempotency-Key", idempotencyKey);
    HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    HttpResponse<byte[]> response = client.send(builder.build(), HttpResponse.BodyHandlers.ofByteArray());
    System.out.write((response.statusCode() + "\n").getBytes(StandardCharsets.UTF_8));
    System.out.write(response.body());
    System.out.flush();
  }

  /** A minimal JSON reader, enough for the vector file: objects, arrays, strings, numbers, literals. */
  static final class Json {
    private final String s;
    private int i;

    Json(String text) {
      s = text;
    }

    Object parse() {
      Object value = value();
      skipSpace();
      if (i != s.length()) throw error("trailing characters");
      return value;
    }

    private Object value() {
      skipSpace();
      if (i >= s.length()) throw error("unexpected end");
      char c = s.charAt(i);
      if (c == '{') return object();
      if (c == '[') return array();
      if (c == '"') return string();
      if (s.startsWith("true", i)) return literal("true", Boolean.TRUE);
      if (s.startsWith("false", i)) return literal("false", Boolean.FALSE);
      if (s.startsWith("null", i)) return literal("null", null);
      return number();
    }

    private Object literal(String word, Object value) {
      i += word.length();
      return value;
    }

    private Map<String, Object> object() {
      Map<String, Object> map = new LinkedHashMap<>();
      i++;
      skipSpace();
      if (peek('}')) return map;
      do {
        skipSpace();
        if (i >= s.length() || s.charAt(i) != '"') throw error("expected a member name");
        String key = string();
        skipSpace();
        expect(':');
        map.put(key, value());
        skipSpace();
      } while (peek(','));
      expect('}');
      return map;
    }

    private List<Object> array() {
      List<Object> list = new ArrayList<>();
      i++;
      skipSpace();
      if (peek(']')) return list;
      do {
        list.add(value());
        skipSpace();
      } while (peek(','));
      expect(']');
      return list;
    }

    private String string() {
      StringBuilder b = new StringBuilder();
      i++; // opening quote
      while (true) {
        if (i >= s.length()) throw error("unterminated string");
        char c = s.charAt(i++);
        if (c == '"') return b.toString();
        if (c < 0x20) throw error("control character in a string");
        if (c != '\\') {
          b.append(c);
          continue;
        }
        if (i >= s.length()) throw error("unterminated escape");
        char e = s.charAt(i++);
        switch (e) {
          case '"', '\\', '/' -> b.append(e);
          case 'b' -> b.append('\b');
          case 'f' -> b.append('\f');
          case 'n' -> b.append('\n');
          case 'r' -> b.append('\r');
          case 't' -> b.append('\t');
          case 'u' -> { // UTF-16 units: a surrogate pair is two \\u escapes, appended in turn
            if (i + 4 > s.length() || !s.substring(i, i + 4).matches("[0-9A-Fa-f]{4}")) throw error("bad \\u escape");
            b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
            i += 4;
          }
          default -> throw error("bad escape \\" + e);
        }
      }
    }

    private Object number() {
      int start = i;
      while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) i++;
      String text = s.substring(start, i);
      if (!text.matches("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?")) throw error("bad number " + text);
      return Double.parseDouble(text);
    }

    private boolean peek(char c) {
      if (i < s.length() && s.charAt(i) == c) {
        i++;
        return true;
      }
      return false;
    }

    private void expect(char c) {
      if (!peek(c)) throw error("expected '" + c + "'");
    }

    private void skipSpace() {
      while (i < s.length() && " \t\r\n".indexOf(s.charAt(i)) >= 0) i++;
    }

    private IllegalArgumentException error(String message) {
      return new IllegalArgumentException("JSON: " + message + " at offset " + i);
    }
  }
}
