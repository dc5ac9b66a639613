package bench

import (
	"context"

	"toolbus/signer"
)

// live is a running relay as a workload sees it.
type live struct {
	// name is the subject's column name (toolbusName or baselineName), for
	// workloads that drive the two relays differently.
	name string
	url  string
	// auth says whether readers must answer NIP-42 AUTH to see member
	// events (toolbus in members mode); the bare baseline never asks.
	auth bool
	// rssMB reads the relay process's resident memory in MB; nil when the
	// relay runs in-process, as in tests.
	rssMB func() (float64, error)
}

// outcome is what one workload measured on one relay.
type outcome struct {
	// samples are raw measurements by kind ("rate", "latency", ...); the
	// samples of every round on one relay are pooled before the metrics
	// summarise them.
	samples map[string][]float64
	// notes are worth showing next to the numbers but are not wrong.
	notes []string
	// failures are the relay misbehaving (an OK false, say): the numbers
	// are still reported, but the run exits non-zero.
	failures []string
}

// Directions of a metric, as the JSON "better" field spells them.
const (
	higher = "higher"
	lower  = "lower"
)

// metric is one number a workload produces: stat applied to the pooled
// samples of kind sample.
type metric struct {
	name, unit, better string
	sample             string
	// floor, when set, is the sample kind the baseline column is computed
	// from instead of sample: the gift-wrapped bus rows are compared with
	// the plaintext floor, which has no wrapped variant.
	floor string
	stat  func([]float64) float64
}

// baselineSample is the sample kind the baseline column summarises.
func (m metric) baselineSample() string {
	if m.floor != "" {
		return m.floor
	}
	return m.sample
}

// workload is one measurement, made on each relay in turn on a fresh one.
type workload struct {
	name    string
	metrics []metric
	// rounds is how many times each relay is measured, alternating which
	// goes first, each time on a fresh relay.
	rounds int
	// prepare runs once before either relay starts, so that the same
	// pre-signed events go to both.
	prepare func() error
	measure func(ctx context.Context, r live) (outcome, error)
}

// crew are the keys of a run: publishers write, the reader subscribes.
// All of them are workspace members of the toolbus relay.
type crew struct {
	publishers []*signer.Local
	reader     *signer.Local
}

// maxPublishers is the most concurrent publishers any workload uses.
const maxPublishers = 16

func newCrew() (*crew, error) {
	keys, err := newKeys(maxPublishers + 1)
	if err != nil {
		return nil, err
	}
	return &crew{publishers: keys[:maxPublishers], reader: keys[maxPublishers]}, nil
}

// members lists every key of the crew as hex public keys.
func (c *crew) members() []string {
	out := []string{c.reader.PublicKey()}
	for _, k := range c.publishers {
		out = append(out, k.PublicKey())
	}
	return out
}
