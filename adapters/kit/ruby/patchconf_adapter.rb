# frozen_string_literal: true

# The protocol half of a patchconf Ruby adapter (harness/PROTOCOL.md): the handshake, the
# request loop, the library's exceptions turned into that case's error, and answers
# written as JSON or not at all. An adapter says who it is, what it runs, how its library
# is loaded and how one case is answered:
#
#   require_relative '../kit/ruby/patchconf_adapter'
#
#   PatchconfAdapter.new(
#     name: 'ruby-my-lib', homepage: 'https://example.org/my-lib',
#     patch_types: ['json-patch'], profile: 'rfc',
#     load: -> { require 'my_lib'; MyLib::VERSION },   # returns the version; a LoadError
#                                                      # becomes "not ready" with the reason
#   ) { |c| { 'document' => MyLib.apply(c['original'], c['patch']) } }.main
#
# Standard library only (json). Numbers: requests are read with JSON.parse, so integers are
# Ruby Integers, exact at any size, and `1.0` stays a Float and is written back as `1.0`.
# A result holding NaN or an infinity, or anything else JSON cannot carry, is that case's
# `unclassified` error instead of a broken line.

require 'json'

class PatchconfAdapter
  PROTOCOL_VERSION = 1

  # A case's error answer: one of patchconf's classes (PROTOCOL.md section 3) and the message.
  Fail = Struct.new(:error_class, :message)
  # A case the adapter declines after all, with the reason.
  Skip = Struct.new(:reason)

  # An exception as a message: its class, then its text.
  def self.describe(error)
    "#{error.class}: #{error.message}"
  end

  # error_class: ->(exception) { class } names an exception's class (default 'unclassified').
  def initialize(name:, homepage:, patch_types:, load:, schemas: ['none'], profile: 'kubernetes',
                 error_class: ->(_error) { 'unclassified' }, &answer)
    @name = name
    @homepage = homepage
    @patch_types = patch_types
    @schemas = schemas
    @profile = profile
    @error_class = error_class
    @answer = answer
    begin
      @version = load.call
    rescue LoadError, StandardError => e
      @load_error = "cannot load the library: #{self.class.describe(e)}"
    end
  end

  # Serve stdin and stdout (UTF-8 whatever the locale), then exit 0.
  def main
    $stdin.set_encoding(Encoding::UTF_8)
    $stdout.set_encoding(Encoding::UTF_8)
    serve($stdin, $stdout)
  end

  # Answer request lines from input on output, one line each, until `stop` or the end of input.
  def serve(input, output)
    input.each_line do |line|
      next if line.strip.empty?

      answer = respond(line)
      break if answer.nil?

      output.write(encode(answer), "\n")
      output.flush
    end
  end

  # The answer to one request line, or nil for `stop`.
  def respond(line)
    request = begin
      JSON.parse(line, max_nesting: false)
    rescue JSON::ParserError, EncodingError => e # no seq to echo: the harness names the broken exchange
      return error_answer(nil, 'unclassified', "unreadable request: #{self.class.describe(e)}")
    end
    return error_answer(nil, 'unclassified', "the request is not a JSON object: #{line[0, 200]}") unless request.is_a?(Hash)

    case request['cmd']
    when 'start' then handshake
    when 'stop' then nil
    when 'run' then run(request['seq'], request['case'])
    else error_answer(request['seq'], 'unclassified', "unknown command #{request['cmd'].inspect}")
    end
  end

  private

  def handshake
    return { 'ready' => false, 'error' => @load_error } if @load_error

    {
      'ready' => true, 'protocol' => PROTOCOL_VERSION,
      'implementation' => { 'name' => @name, 'version' => @version, 'language' => 'ruby', 'homepage' => @homepage },
      'capabilities' => { 'patch_types' => @patch_types, 'schemas' => @schemas, 'profile' => @profile,
                          'messages' => false }
    }
  end

  # The answer to one `run` request; the library's failure is the case's answer.
  def run(seq, kase)
    return error_answer(seq, 'unclassified', "the request's case is not an object: #{kase.inspect[0, 200]}") unless kase.is_a?(Hash)
    return { 'seq' => seq, 'skipped' => "#{@name} does not run #{kase['type'].inspect} cases" } unless @patch_types.include?(kase['type'])

    answer = begin
      @answer.call(kase)
    rescue StandardError, SystemStackError => e
      return error_answer(seq, classify(e), self.class.describe(e))
    end
    case answer
    when Skip then { 'seq' => seq, 'skipped' => answer.reason }
    when Fail then error_answer(seq, answer.error_class, answer.message)
    when Hash then { 'seq' => seq, 'result' => answer }
    else error_answer(seq, 'unclassified', "the adapter's answer is not a result object: #{answer.inspect[0, 200]}")
    end
  end

  # The adapter's class for an exception; a broken classifier must not end the program either.
  def classify(error)
    @error_class.call(error)
  rescue StandardError
    'unclassified'
  end

  def error_answer(seq, error_class, message)
    { 'seq' => seq, 'error' => { 'class' => error_class, 'message' => message } }
  end

  # One answer line; a result JSON cannot carry becomes an error of the same case.
  def encode(answer)
    JSON.generate(answer, max_nesting: false)
  rescue JSON::JSONError, EncodingError, SystemStackError => e # NaN, a cycle, text that is not UTF-8
    JSON.generate(error_answer(answer['seq'], 'unclassified', "the library's output is not JSON: #{self.class.describe(e)}"))
  end
end
