# frozen_string_literal: true

# Sign Domain Sales partner API requests and verify webhook deliveries (Ruby 2.7+, standard library only).
#
# The recipe is spec/docs/signing.md; the known answers are spec/vectors/signing.json. Copy the
# DomainSalesSigning module into your code: canonical_query, canonical_string, sign_request and
# signed_headers sign a request; verify_webhook checks a delivery.
#
# Usage:
#   ruby domain_sales_signing.rb request METHOD TARGET [BODY]
#       env SERVICE_BASE_URL, SERVICE_KEY_ID, SERVICE_SECRET; IDEMPOTENCY_KEY (optional, POST /orders).
#       Signs and sends exactly BODY's bytes; prints the HTTP status, then the response body.
#   ruby domain_sales_signing.rb verify-webhook SECRET SIGNATURE_HEADER < raw-body
#       Prints "valid" (exit 0) or "invalid" (exit 1).
#   ruby domain_sales_signing.rb vectors path/to/signing.json
#       Prints what this code computes for every vector, one JSON object per line.

require 'json'
require 'net/http'
require 'openssl'
require 'securerandom'

module DomainSalesSigning
  EMPTY_BODY_SHA256 = OpenSSL::Digest::SHA256.hexdigest('')
  UNRESERVED = /\A[A-Za-z0-9\-_.~]\z/.freeze

  # The API answers a malformed query with HTTP 400 validation_error.
  class MalformedQuery < ArgumentError; end

  module_function

  # Strict percent-decoding: only %XX escapes, "+" stays a plus, the result must be valid UTF-8.
  # URI.decode_www_form_component and CGI.unescape are NOT suitable: they turn "+" into a space
  # and do not refuse invalid UTF-8.
  def decode_component(raw)
    bytes = raw.b.gsub(/%(\h\h)?/n) do
      raise MalformedQuery, "a \"%\" not followed by two hex digits in #{raw.inspect}" unless Regexp.last_match(1)

      Regexp.last_match(1).hex.chr
    end
    # Ruby's UTF-8 validity check refuses overlongs, surrogates and code points above U+10FFFF.
    text = bytes.force_encoding(Encoding::UTF_8)
    raise MalformedQuery, "#{raw.inspect} is not valid UTF-8 once decoded" unless text.valid_encoding?

    text
  end

  # UTF-8 bytes; only A-Z a-z 0-9 - _ . ~ literal, every other byte as %XX in uppercase.
  def encode_component(text)
    text.b.each_char.map { |c| UNRESERVED.match?(c) ? c : format('%%%02X', c.ord) }.join
  end

  # The raw query string (after "?", never a parsed params hash) in canonical form.
  def canonical_query(raw_query)
    pairs = raw_query.split('&').reject(&:empty?).map do |part|
      key, value = part.split('=', 2) # split at the first "="; no "=" gives nil, an empty value
      [decode_component(key), decode_component(value || '')]
    end
    # Comparing the binary (UTF-8 byte) forms is code point order, not UTF-16 units.
    pairs.sort_by! { |k, v| [k.b, v.b] }
    pairs.map { |k, v| "#{encode_component(k)}=#{encode_component(v)}" }.join('&')
  end

  def body_sha256_hex(method, body)
    %w[GET HEAD].include?(method) || body.empty? ? EMPTY_BODY_SHA256 : OpenSSL::Digest::SHA256.hexdigest(body.b)
  end

  # Six lines: METHOD, PATH (as sent), canonical query, timestamp, nonce, body SHA-256.
  def canonical_string(method, path, raw_query, timestamp, nonce, body)
    method = method.upcase
    [method, path, canonical_query(raw_query), timestamp, nonce, body_sha256_hex(method, body)].join("\n")
  end

  # The X-Service-Signature header value: v1= and the lowercase hex HMAC-SHA256.
  def sign_request(secret, canonical)
    "v1=#{OpenSSL::HMAC.hexdigest('SHA256', secret.b, canonical.b)}"
  end

  # The four X-Service-* headers for one attempt (a retry calls this again: new nonce).
  def signed_headers(key_id, secret, method, target, body = '')
    path, query = target.split('?', 2)
    timestamp = Time.now.to_i.to_s # whole seconds
    nonce = SecureRandom.uuid # random (CSPRNG), fresh for every attempt
    {
      'X-Service-Key-Id' => key_id,
      'X-Service-Timestamp' => timestamp,
      'X-Service-Nonce' => nonce,
      'X-Service-Signature' => sign_request(secret, canonical_string(method, path, query || '', timestamp, nonce, body))
    }
  end

  def webhook_signature(secret, body)
    OpenSSL::HMAC.hexdigest('SHA256', secret.b, body.b)
  end

  # Whether X-Service-Signature (bare lowercase hex, no v1=) matches the raw body
  # (request.raw_post in Rails, request.body.read in Rack) in constant time.
  def verify_webhook(secret, body, signature_header)
    expected = webhook_signature(secret, body)
    header = signature_header.to_s.b
    # The same comparison as Rack::Utils.secure_compare: every byte is looked at.
    return false unless header.bytesize == expected.bytesize

    expected.bytes.zip(header.bytes).reduce(0) { |acc, (a, b)| acc | (a ^ b) }.zero?
  end
end

# --- command line ------------------------------------------------------------------------------

# Sends body's exact bytes; sign_body (a test aid) signs other bytes than those sent.
def send_request(method, target, body, sign_body)
  method = method.upcase
  headers = DomainSalesSigning.signed_headers(ENV.fetch('SERVICE_KEY_ID'), ENV.fetch('SERVICE_SECRET'),
                                              method, target, sign_body || body)
  headers['Content-Type'] = 'application/json' unless body.empty?
  headers['Idempotency-Key'] = ENV['IDEMPOTENCY_KEY'] unless ENV['IDEMPOTENCY_KEY'].to_s.empty?
  base = URI(ENV.fetch('SERVICE_BASE_URL'))
  # A String path is sent as given: URI would re-encode it.
  request = Net::HTTPGenericRequest.new(method, !%w[GET HEAD].include?(method), method != 'HEAD',
                                        base.path.chomp('/') + target, headers)
  request.body = body unless %w[GET HEAD].include?(method)
  response = Net::HTTP.start(base.host, base.port, use_ssl: base.scheme == 'https') { |http| http.request(request) }
  [response.code.to_i, response.body.to_s]
end

def vectors(path)
  doc = JSON.parse(File.read(path, encoding: 'UTF-8'))
  out = []
  doc['canonical_query'].each { |c| out << ['canonical_query', c['name'], DomainSalesSigning.canonical_query(c['query'])] }
  (doc['invalid_query'] || []).each do |c|
    result = begin
      DomainSalesSigning.canonical_query(c['query'])
    rescue DomainSalesSigning::MalformedQuery
      'rejected'
    end
    out << ['invalid_query', c['name'], result]
  end
  doc['signatures'].each do |c|
    canonical = DomainSalesSigning.canonical_string(c['method'], c['path'], c['query'], c['timestamp'], c['nonce'], c['body'])
    out << ['signature', c['name'], DomainSalesSigning.sign_request(c['secret'], canonical)]
  end
  doc['webhooks'].each { |c| out << ['webhook', c['name'], DomainSalesSigning.webhook_signature(c['secret'], c['body'])] }
  out.each { |kind, name, result| puts JSON.generate({ kind: kind, name: name, result: result }) }
end

def main(argv)
  command = argv[0]
  if command == 'vectors' && argv.length == 2
    vectors(argv[1])
    0
  elsif command == 'request' && [3, 4].include?(argv.length)
    status, content = send_request(argv[1], argv[2], argv[3] || '', ENV['SIGN_BODY'])
    $stdout.binmode
    $stdout.write("#{status}\n", content)
    0
  elsif command == 'verify-webhook' && argv.length == 3
    valid = DomainSalesSigning.verify_webhook(argv[1], $stdin.binmode.read, argv[2])
    puts(valid ? 'valid' : 'invalid')
    valid ? 0 : 1
  else
    warn 'usage: request METHOD TARGET [BODY] | verify-webhook SECRET SIGNATURE < body | vectors FILE'
    2
  end
end

exit(main(ARGV)) if $PROGRAM_NAME == __FILE__
