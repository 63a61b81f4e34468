package main

import (
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/herd-sh/herd/brain"
	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/personas"
	"github.com/herd-sh/herd/report"
	"github.com/herd-sh/herd/swarm"
	"github.com/herd-sh/herd/swarm/target"
)

// brainOptions are the flags of a run whose agents are a language model
// (--brain openai:MODEL) instead of the scripted personas.
type brainOptions struct {
	brain       string
	url         string
	keyEnv      string
	temperature float64
	maxSteps    int
	concurrency int
	retries     int
	cassette    string
	record      bool
	given       bool // any of the brain flags was given
}

// brainProvider is the one wire format spoken: OpenAI-compatible chat
// completions with tool calling (Ollama, vLLM, llama.cpp, LM Studio,
// OpenAI, gateways).
const brainProvider = "openai"

func (b *brainOptions) addFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&b.brain, "brain", "", "play the episodes with a language model instead of personas: openai:MODEL (any OpenAI-compatible chat-completions endpoint with tool calling)")
	f.StringVar(&b.url, "brain-url", "", "the model endpoint's base URL, e.g. http://127.0.0.1:11434/v1 (loopback only unless --allow-host names the host)")
	f.StringVar(&b.keyEnv, "brain-key-env", "OPENAI_API_KEY", "environment variable holding the endpoint's API key (the key is never a flag and never recorded)")
	f.Float64Var(&b.temperature, "temperature", 0, "the model's sampling temperature, 0 to 2")
	f.IntVar(&b.maxSteps, "max-steps", brain.DefaultMaxSteps, "model turns per episode; an episode that has not finished by then is judged as it stands")
	f.IntVar(&b.concurrency, "brain-concurrency", 4, "episodes asking the model at once")
	f.IntVar(&b.retries, "brain-retries", brain.DefaultMaxRetries, "times a request that met 429, 5xx or a connection error is sent again (with backoff, honouring Retry-After)")
	f.StringVar(&b.cassette, "cassette", "", "replay the model's answers from this cassette file (no endpoint is contacted; a request it lacks is an error)")
	f.BoolVar(&b.record, "record", false, "with --cassette: ask the endpoint for what the cassette lacks and record it")
}

// readGiven notes which brain flags were given.
func (b *brainOptions) readGiven(fs *pflag.FlagSet) {
	for _, n := range []string{"brain", "brain-url", "brain-key-env", "temperature", "max-steps", "brain-concurrency", "brain-retries", "cassette", "record"} {
		b.given = b.given || fs.Changed(n)
	}
}

func (b *brainOptions) on() bool { return b.brain != "" }

// model is MODEL of --brain openai:MODEL.
func (b *brainOptions) model() (string, error) {
	provider, model, ok := strings.Cut(b.brain, ":")
	if !ok || provider != brainProvider || strings.TrimSpace(model) == "" {
		return "", usageErrf("--brain: want openai:MODEL (the OpenAI-compatible chat-completions wire format), got %q", b.brain)
	}
	return model, nil
}

// check refuses brain flags that cannot work, before anything runs.
func (b *brainOptions) check(spec target.Spec, set givenFlags, allowHosts []string) error {
	if !b.on() {
		if b.given {
			return usageErrf("--brain-url, --cassette and the other model flags need --brain openai:MODEL")
		}
		return nil
	}
	if _, err := b.model(); err != nil {
		return err
	}
	if spec.Kind != target.KindInProcess {
		return usageErrf("--brain: a model plays in-process worlds (mock:NAME or a world file); %s is reached over a transport", spec.Raw)
	}
	if set.mix || set.personas {
		return usageErrf("--brain: the model is the agent; --mix and --personas choose scripted personas and do not apply")
	}
	if b.record && b.cassette == "" {
		return usageErrf("--record: needs --cassette FILE to record to")
	}
	replay := b.cassette != "" && !b.record
	if b.url == "" && !replay {
		return usageErrf("--brain-url: required (the endpoint's base URL, e.g. http://127.0.0.1:11434/v1), or replay with --cassette FILE")
	}
	if b.url != "" {
		u, err := url.Parse(b.url)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return usageErrf("--brain-url: %q is not an http(s) URL", b.url)
		}
		if err := target.CheckHost(u, allowHosts); err != nil {
			return flagErr(err)
		}
	}
	if b.temperature < 0 || b.temperature > 2 {
		return usageErrf("--temperature: %g, want 0 to 2", b.temperature)
	}
	if b.maxSteps < 1 || b.maxSteps > brain.MaxStepsLimit {
		return usageErrf("--max-steps: %d, want 1 to %d", b.maxSteps, brain.MaxStepsLimit)
	}
	if b.concurrency < 1 || b.concurrency > 256 {
		return usageErrf("--brain-concurrency: %d, want 1 to 256", b.concurrency)
	}
	if b.retries < 0 || b.retries > 20 {
		return usageErrf("--brain-retries: %d, want 0 to 20", b.retries)
	}
	return nil
}

// brainRun is a run's model: its client, and what finishing the run
// records.
type brainRun struct {
	b        *brainOptions
	client   *brain.Client
	cassette *brain.Cassette
}

// modelPersona labels the model's episodes in the results: the model is
// the run's one "persona", named in run.model.
var modelPersona = &personas.Persona{Name: "model", Description: "a language model (run.model names it)"}

// start makes the model's client and sets cfg to play with it: one
// pseudo-persona, the model's players, its concurrency, and a command
// line that reproduces the run (with the cassette, when there is one).
func (b *brainOptions) start(o *swarmCmdOptions, cfg *swarm.Config) (*brainRun, error) {
	model, _ := b.model()
	// The temperature is always sent (0 unless given): left out, each
	// endpoint would pick its own, and the same command would sample
	// differently on Ollama and on vLLM.
	t := b.temperature
	s := brain.Settings{Model: model, URL: b.url, Key: os.Getenv(b.keyEnv), MaxSteps: b.maxSteps,
		MaxRetries: b.retries, Temperature: &t, HTTPClient: target.NewHTTPClient(o.targetOptions())}
	br := &brainRun{b: b}
	if b.cassette != "" {
		c, err := brain.OpenCassette(b.cassette, b.record)
		if err != nil {
			return nil, usageErr(err)
		}
		s.Cassette, br.cassette = c, c
	}
	client, err := brain.NewClient(s)
	if err != nil {
		return nil, usageErr(err)
	}
	br.client = client
	cfg.Mix = []swarm.MixEntry{{Persona: modelPersona, Weight: 1}}
	if !o.set.workers {
		cfg.Workers = b.concurrency
	}
	cfg.Players = func(variant string, descs map[string]string, meant func(*engine.Goal) string) (swarm.Player, error) {
		return brain.NewAgent(client, cfg.World, variant, descs, meant), nil
	}
	cfg.Command += b.flags()
	if b.cassette == "" {
		// Nothing replays a live model's episode: its traces carry none.
		cfg.ReplayCommand = nil
	} else {
		cmdline := cfg.Command
		cfg.ReplayCommand = func(swarm.ReplaySpec) string { return cmdline }
	}
	return br, nil
}

// flags are the brain flags of the reproducing command line: the
// cassette replays it, so --record is left out.
func (b *brainOptions) flags() string {
	var p []string
	p = append(p, "--brain", shellQuote(b.brain))
	if b.url != "" && b.cassette == "" {
		p = append(p, "--brain-url", shellQuote(b.url))
	}
	if b.temperature != 0 {
		p = append(p, "--temperature", fmt.Sprint(b.temperature))
	}
	if b.maxSteps != brain.DefaultMaxSteps {
		p = append(p, "--max-steps", fmt.Sprint(b.maxSteps))
	}
	if b.cassette != "" {
		p = append(p, "--cassette", shellQuote(b.cassette))
	}
	return " " + strings.Join(p, " ")
}

// finish records the model in the results, saves a recording cassette
// (also after an interrupt: what finished is kept) and prints the cost.
func (br *brainRun) finish(res *report.Results, chatter io.Writer) error {
	u := br.client.Usage()
	t := br.b.temperature
	m := &report.ModelRun{Name: br.client.Model(), Endpoint: "openai-chat-completions", MaxSteps: br.b.maxSteps,
		Temperature: &t, Requests: u.Requests, PromptTokens: u.PromptTokens, OutputTokens: u.OutputTokens}
	if br.cassette != nil {
		if br.b.record {
			if err := br.cassette.Save(); err != nil {
				return codeErr(exitUsage, err)
			}
		}
		m.Cassette = br.cassette.Hash()
	}
	res.Run.Model = m
	how := br.client.Endpoint()
	if br.cassette != nil {
		how = fmt.Sprintf("%s %s, %s exchanges, %s new", how, br.b.cassette, report.Thousands(int64(br.cassette.Len())), report.Thousands(int64(br.cassette.Added())))
	}
	fmt.Fprintf(chatter, "herd: model %s (%s): %s requests (%s retried), %s tokens in, %s out\n",
		m.Name, how, report.Thousands(u.Requests), report.Thousands(max(u.Attempts-u.Requests, 0)),
		report.Thousands(u.PromptTokens), report.Thousands(u.OutputTokens))
	return nil
}
