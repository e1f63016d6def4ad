// The column table of every CSV file a run writes: for each file its columns in order, each
// with name, type (int, float, string, bool: 0/1), whether a cell may be empty, unit and a
// one-line description. It is the only place the columns are listed:
//   - the writers take their headers from it (models/trace/trace-schema.h, TraceHeader);
//   - analysis/trace_schema.py reads the JSON between the raw-string markers below, so the
//     analysis scripts check the columns they need against it;
//   - analysis/trace_doc.py --write turns it into the column tables of docs/traces.md.
// Edit the JSON only (standard JSON, no comments). Column names and order are the traces'
// format: tests/golden/ holds every shipped scenario's traces byte for byte.
#include <string_view>

namespace fedran
{
extern const std::string_view kTraceColumnsJson;
const std::string_view kTraceColumnsJson = R"trace-columns(
{
  "files": [
    {
      "file": "rounds.csv",
      "description": "one row per round, flushed as the round ends",
      "writer": "models/trace/fl-trace-writer.cc",
      "columns": [
        {"name": "round", "type": "int", "unit": "", "description": "1-based round number"},
        {"name": "sim_time_s", "type": "float", "unit": "s", "description": "simulated time at which the round ended (aggregation and evaluation done)"},
        {"name": "round_duration_s", "type": "float", "unit": "s", "description": "from sending the global model to the round's end"},
        {"name": "aggregate_s", "type": "float", "unit": "s", "description": "simulated server time combining the round's updates and applying the result (`server.compute`; after the last update was folded in; 0 without an update)"},
        {"name": "evaluate_s", "type": "float", "unit": "s", "description": "simulated server time evaluating the new model: its forward FLOPs × test examples × the profile's seconds per FLOP ÷ `server.compute.speed` ÷ `server.compute.cores`; the round ends after it, and the next starts"},
        {"name": "test_accuracy", "type": "float", "unit": "0–1", "empty": true, "description": "accuracy of the new global model on the whole test set; empty for a forecasting task"},
        {"name": "test_loss", "type": "float", "unit": "nats", "description": "mean cross-entropy of the new global model on the test set (forecasting: mean squared error on the normalised targets)"},
        {"name": "test_rmse", "type": "float", "empty": true, "unit": "signal", "description": "forecasting tasks: root-mean-square error of the new global model over every test point of every series, in the signal's original units; empty for classification"},
        {"name": "test_mae", "type": "float", "empty": true, "unit": "signal", "description": "forecasting tasks: mean absolute error, same points and units; empty for classification"},
        {"name": "test_nrmse", "type": "float", "empty": true, "unit": "", "description": "forecasting tasks: `test_rmse` divided by the mean of the true test values; empty for classification"},
        {"name": "selected", "type": "int", "unit": "clients", "description": "clients sampled for the round"},
        {"name": "participants", "type": "int", "unit": "clients", "description": "updates aggregated (arrived before the deadline and decoded; at most `clients_per_round`)"},
        {"name": "uplink_payload_bytes", "type": "int", "unit": "B", "description": "update frames (28-byte header + codec payload) that clients handed to the network while the round was open (with edge aggregation: every tier's, the sites' to their aggregators and the hubs' to their parents; with `server.selection` `power_of_choice` `pow-d`: and the candidates' 32-byte loss replies, see [selection.md](selection.md))"},
        {"name": "downlink_payload_bytes", "type": "int", "unit": "B", "description": "global-model frames the server handed to the network while the round was open (with edge aggregation: and the edge-model frames the hubs sent; with `pow-d` selection: the model frames of its poll and the kept clients' 28-byte train-start headers)"},
        {"name": "uplink_wire_bytes", "type": "int", "unit": "B", "description": "bytes of FL traffic transmitted by the client ends of the backhaul links while the round was open: PPP, IPv4 and TCP headers, retransmissions and pure ACKs included; background traffic (`backhaul.background`) excluded (lte: the IP packets each UE sends into its radio interface; LTE's own headers, HARQ and padding are not counted, see [links.md](links.md#lte); network.transport `flow`: the flows' wire bytes, headers, retransmissions at the path's loss rate and ACKs counted as packet mode would send them, see [flow-validation.md](flow-validation.md))"},
        {"name": "downlink_wire_bytes", "type": "int", "unit": "B", "description": "the same at the router ends of the backhaul links (lte: the IP packets the PGW forwards toward each UE)"},
        {"name": "cumulative_uplink_wire_bytes", "type": "int", "unit": "B", "description": "running sum of `uplink_wire_bytes`"},
        {"name": "cumulative_wire_bytes", "type": "int", "unit": "B", "description": "running sum of uplink + downlink wire bytes"},
        {"name": "robust_rule", "type": "string", "unit": "", "description": "the rule that combined the round's updates, `server.robust.type` (`mean`: the uplink codec's own, the sample-weighted mean or sign's majority vote); see [byzantine.md](byzantine.md)"},
        {"name": "buffer_fill_s", "type": "float", "empty": true, "unit": "s", "description": "async mode (`server.mode` async; a row is one server step, `round` its version): from the first to the K-th update of the step's buffer; empty in sync mode"},
        {"name": "energy_j", "type": "float", "empty": true, "unit": "J", "description": "energy of the round ([energy.md](energy.md)): the energy columns of the clients.csv rows written while the round was open (its own rows, and the `late_arrival` rows of earlier rounds whose updates arrived meanwhile) plus the server's `server.energy.compute_w` × (the `decode_s` of those rows + `aggregate_s` + `evaluate_s`); empty when the scenario configures no energy (no `clients.groups[].energy`, no `server.energy`)"},
        {"name": "cumulative_energy_j", "type": "float", "empty": true, "unit": "J", "description": "running sum of `energy_j`; empty when the scenario configures no energy"},
        {"name": "epsilon", "type": "float", "empty": true, "unit": "", "description": "`privacy.dp`: the epsilon spent by rounds 1 to this one at `privacy.dp.delta` (mode `central`: RDP accountant of the Poisson-subsampled Gaussian, q = `clients_per_round` / clients, one step per round; mode `local`: the Gaussian mechanism without amplification, one step per selection of the most-selected site so far; tight conversion; `inf` with `noise_multiplier` 0); empty without DP; 6 significant digits. See [privacy.md](privacy.md)"},
        {"name": "clip_norm", "type": "float", "empty": true, "unit": "", "description": "`privacy.dp`: the clip norm C used in this round: `clip_norm`, or with `adaptive_clipping` the estimator's C of the round (float32, as the model frames carry it to the sites); empty without DP; 6 significant digits. See [privacy.md](privacy.md)"},
        {"name": "secagg_bytes", "type": "int", "empty": true, "unit": "B", "description": "`privacy.secure_aggregation`: the protocol's frames beyond the masked vectors, both ways, headers included: setup, public keys, neighbours' keys, encrypted shares and their relay, unmasking requests and shares (the masked vectors are the update frames of the payload columns; the model frames those of `downlink_payload_bytes`; the wire columns count everything); empty without secure aggregation. See [privacy.md](privacy.md)"},
        {"name": "secagg_s", "type": "float", "empty": true, "unit": "s", "description": "`privacy.secure_aggregation`: simulated seconds in its extra stages, from the round's start to the model frames (setup, keys, shares) plus the unmasking (the round's duration includes them); empty without secure aggregation"},
        {"name": "secagg_status", "type": "string", "empty": true, "values": ["ok", "failed_advertise_keys", "failed_share_keys", "failed_masked_input", "failed_unmask"], "unit": "", "description": "`privacy.secure_aggregation`: `ok` when the sum was unmasked; `failed_<stage>` when that stage ended with fewer clients than `threshold`, or (`failed_unmask`) a secret could not be rebuilt: the round has no update and the model stays as it was (stderr and run.json say why); empty without secure aggregation"}
      ]
    },
    {
      "file": "clients.csv",
      "description": "one row per selected client per round, written out and fsynced as the round ends (a late client's too), plus a `late_arrival` row when a late client's discarded update arrives",
      "writer": "models/trace/fl-trace-writer.cc",
      "columns": [
        {"name": "round", "type": "int", "unit": "", "description": "round the client was selected for"},
        {"name": "client", "type": "int", "unit": "", "description": "client index (clients are numbered group by group, in scenario order)"},
        {"name": "group", "type": "string", "unit": "", "description": "name of the client's group"},
        {"name": "status", "type": "string", "values": ["completed", "late", "late_arrival", "dropped", "failed", "stale", "corrupt", "crashed"], "unit": "", "description": "`completed`: update arrived before the round ended and was aggregated (an adaptive uplink's skip with `on_skip: \"omit\"` is accepted but adds nothing); `late`: no update had arrived when the round ended (deadline passed, or the first `clients_per_round` updates of an over-selected round were already in; the client was still computing or uploading, its update is discarded when it arrives, and it is not selected again until then); `late_arrival`: not a selection but the arrival of a `late` client's discarded update, written when it arrives (its `round` is the round the update was for, `upload_end_s` when it arrived, after that round's `sim_time_s`); `dropped`: the client went away before its update arrived (it dropped out, its on/off availability turned off, or its connection closed or reset), including mid-upload; `failed`: an update or frame arrived but could not be used (bad frame, wrong codec, decode error); `stale` (async mode): older than `server.async.max_staleness` versions, discarded; `corrupt`: the update frame failed its CRC check (`faults.corrupt_uplink`), was dropped, and the connection stayed up; `crashed`: the site crashed while training (`faults.crashes`) and restarts later"},
        {"name": "model_received_s", "type": "float", "empty": true, "unit": "s", "description": "when the client had the whole global model (empty if it never did)"},
        {"name": "compute_s", "type": "float", "empty": true, "unit": "s", "description": "simulated local training time: examples × local epochs / `samples_per_second` (empty if the upload had not started)"},
        {"name": "encode_s", "type": "float", "empty": true, "unit": "s", "description": "simulated encoding time after local training (the codec's cost model, `compute.profile`, ÷ `compute.codec_speed`); the upload starts after it. A two-exchange codec adds its second client step (empty if the upload had not started)"},
        {"name": "upload_start_s", "type": "float", "empty": true, "unit": "s", "description": "when the client handed its update to TCP"},
        {"name": "upload_end_s", "type": "float", "empty": true, "unit": "s", "description": "when the server had the whole update: for `completed` and `late_arrival` rows; empty otherwise"},
        {"name": "decode_s", "type": "float", "empty": true, "unit": "s", "description": "simulated server time decoding the update and folding it into the aggregate, on one of `server.compute.cores` (a two-exchange codec: both payloads); updates wait for a free core in arrival order. Empty if it was not decoded"},
        {"name": "train_loss", "type": "float", "unit": "nats", "description": "mean minibatch loss of the client's local training"},
        {"name": "update_norm", "type": "float", "unit": "", "description": "L2 norm of the client's update (local model minus the model it started from), before compression; for an attacker, of the update it sends (see `attack`); 6 significant digits"},
        {"name": "grad_variance", "type": "float", "unit": "", "description": "estimated variance of the minibatch gradient, tr Cov(g_b): the mean of ‖g_b − g_(b−1)‖² / 2 over consecutive minibatch gradients of the data loss (0 with fewer than two batches); it scales as 1 / batch size, so batch-size and step-size controllers can read it. Formula and bias in `models/learning/local-trainer.h` (`TrainingResult`). With an adaptive uplink of policy `variance` or `hybrid`: the controller's input instead, the sample variance of 4 minibatch gradients at the round's start model (no drift; `models/learning/gradient-spread.h`); 6 significant digits"},
        {"name": "raw_bytes", "type": "int", "unit": "B", "description": "the update as float32 before compression"},
        {"name": "payload_bytes", "type": "int", "unit": "B", "description": "the encoded update frame (header + codec payload); 0 if the upload had not started by the round's end"},
        {"name": "predicted_payload_bytes", "type": "int", "empty": true, "unit": "B", "description": "adaptive uplink: the frame (header + payload) of the chosen rung's trial encoding of this very update, the size the controller compared with its budget; the client sends that encoding, so it equals `payload_bytes` once the upload has started (see docs/adaptive-bitrate.md). Empty for other codecs (no prediction is made), a skip, or an update not encoded"},
        {"name": "downlink_payload_bytes", "type": "int", "unit": "B", "description": "the global-model frame sent to this client (`pow-d` selection: its poll's model frame and the 28-byte train-start header)"},
        {"name": "downlink_codec", "type": "string", "empty": true, "unit": "", "description": "the codec of the global-model frame sent to this client: the downlink codec's type (`none` for none), or with an adaptive downlink (`compression.downlink.type` `adaptive`) the rung the server chose for it, as the rung's codec and its index in the ladder, e.g. `quantization[2]` (see docs/adaptive-bitrate.md, Downlink); empty if no model frame was sent to it"},
        {"name": "codec", "type": "string", "unit": "", "description": "uplink codec (its type); under a level policy (`compression.uplink.policy` `dadaquant`, `adaquantfl` or `adagq`) the QSGD level the server chose for this update, e.g. `qsgd(s=4)`, see docs/adaptive-bitrate.md"},
        {"name": "rung", "type": "int", "empty": true, "unit": "", "description": "adaptive uplink (all six columns below are empty otherwise): the ladder rung the client used (0 = most faithful); empty for a skip or when the update was not sent"},
        {"name": "predicted_bps", "type": "int", "empty": true, "unit": "bit/s", "description": "adaptive: the bandwidth prediction the choice used; empty if there was none"},
        {"name": "measured_bps", "type": "int", "empty": true, "unit": "bit/s", "description": "adaptive: the client's newest own measurement when it chose (bytes / hand-off → last byte acknowledged, of its latest acknowledged update); this round's own upload is `payload_bytes` over `upload_end_s` − `upload_start_s`"},
        {"name": "time_budget_s", "type": "float", "empty": true, "unit": "s", "description": "adaptive: the upload time budget (deadline − compute − elapsed for `deadline`/`hybrid`, `target_upload_s` for `throughput`)"},
        {"name": "deadline_met", "type": "bool", "empty": true, "unit": "", "description": "adaptive: the update (or skip) arrived before the round closed (`status` completed)"},
        {"name": "skipped", "type": "bool", "empty": true, "unit": "", "description": "adaptive: a lazy-update skip (see docs/adaptive-bitrate.md)"},
        {"name": "hub", "type": "string", "empty": true, "unit": "", "description": "the hub the client hangs off (`clients.groups[].hub`; a family member's own name, e.g. `agg-3`); empty for a client of the aggregation router"},
        {"name": "attack", "type": "string", "empty": true, "unit": "", "description": "the client's attack (`clients.groups[].attack.type`) if it was active in this round (from `start_round` on); empty for an honest client. See [byzantine.md](byzantine.md)"},
        {"name": "aggregate_weight", "type": "float", "empty": true, "unit": "", "description": "what the client's update counted for in the round's combination (`robust_rule`): `mean` its sample share (majority vote: 1/n), `median` the share of coordinates where its value was the median, `trimmed_mean` its mean weight over coordinates (0 where trimmed), `krum`/`multi_krum` 1/m if chosen else 0, `geometric_median` its Weiszfeld weight, `centered_clipping` its clipping factor / n, `norm_bound` sample share × clipping factor; empty if the update was not aggregated (not `completed`, an omitted skip, or a two-exchange codec); 6 significant digits. See [byzantine.md](byzantine.md)"},
        {"name": "model_version", "type": "int", "unit": "", "description": "the global model version the client trained from (sync: `round` − 1)"},
        {"name": "staleness", "type": "int", "empty": true, "unit": "", "description": "how many server versions the model moved on while the client trained: the version when its update was aggregated (or discarded as `stale`) minus `model_version`; 0 for a `completed` update in sync mode; empty when no update arrived in time"},
        {"name": "energy_compute_j", "type": "float", "empty": true, "unit": "J", "description": "the group's `energy.compute_w` × (`compute_s` + `encode_s`), empty cells counting 0; a `late_arrival` row charges only what its `late` row could not (training that ended after the round); empty when the client's group has no `energy` ([energy.md](energy.md))"},
        {"name": "energy_radio_j", "type": "float", "empty": true, "unit": "J", "description": "`energy.tx_w` × (`upload_end_s` − `upload_start_s`, when the update arrived) + `energy.rx_w` × the model download (from the server handing the model frame to the transport to `model_received_s`); a `late` row's upload is charged on its `late_arrival` row; empty when the group has no `energy`"},
        {"name": "energy_idle_j", "type": "float", "empty": true, "unit": "J", "description": "`energy.idle_w` × max(0, `round_duration_s` − download − `compute_s` − `encode_s` − upload) for a row whose update arrived before its round ended; 0 for other rows (the site was busy, or gone, until the round's end); empty when the group has no `energy.idle_w`"},
        {"name": "selection_score", "type": "float", "empty": true, "optional": true, "unit": "", "description": "only with a `server.selection` policy other than `random` (the column is absent otherwise, so random runs keep their files): the score the policy selected the client by in this round, `network` its predicted round time in s, `fedcs` the time its scheduled upload ends (Θ′, s), `oort` its utility (exploited) or its penalised data size (explored), `power_of_choice` the loss it was ranked by (`rpow-d`: its last reported; `pow-d`: the one it answered the round's poll with); under `network` and `power_of_choice` empty for a client not measured yet (`fedcs` gives one the Θ it was admitted at); 6 significant digits. See [selection.md](selection.md)"}
      ]
    },
    {
      "file": "edge_rounds.csv",
      "description": "with edge aggregation (`network.hubs[].aggregator`) only: one row per aggregating hub per edge round, written and flushed as the edge round ends; see [hierarchical.md](hierarchical.md)",
      "writer": "simulator/edge-round-trace.cc",
      "columns": [
        {"name": "hub", "type": "string", "unit": "", "description": "the aggregating hub (a family member's own name, e.g. `agg-3`)"},
        {"name": "round", "type": "int", "unit": "", "description": "the parent's round whose model the hub's edge rounds started from (for a hub whose parent is the server, the `round` of `rounds.csv`)"},
        {"name": "edge_round", "type": "int", "unit": "", "description": "1 .. `edge_rounds` within that round"},
        {"name": "participants", "type": "int", "unit": "clients", "description": "updates the hub combined (its direct children's: sites and aggregating hubs; arrived before `aggregator.deadline_s` and decoded; at most its `clients_per_round`)"},
        {"name": "uplink_bytes", "type": "int", "unit": "B", "description": "update frames (28-byte header + codec payload) that arrived from the hub's children during the edge round and were not late"},
        {"name": "downlink_bytes", "type": "int", "unit": "B", "description": "edge-model frames the hub handed to the network for its selected children"},
        {"name": "duration_s", "type": "float", "unit": "s", "description": "from sending the edge model to the edge round's end (every selected child answered, `clients_per_round` updates in, or the deadline)"}
      ]
    },
    {
      "file": "partition.csv",
      "description": "one row per client: its training examples and their labels, written before round 1",
      "writer": "models/learning/partition-summary.cc",
      "columns": [
        {"name": "client", "type": "int", "unit": "", "description": "client index, as in `clients.csv`"},
        {"name": "group", "type": "string", "unit": "", "description": "name of the client's group"},
        {"name": "samples", "type": "int", "unit": "", "description": "training examples the client holds (its FedAvg weight)"},
        {"name": "label_{i}", "type": "int", "repeat": {"count": "classes", "symbol": "C"}, "unit": "", "description": "how many of them have each label (C = the dataset's classes)"}
      ]
    },
    {
      "file": "population.csv",
      "description": "one row per client: its group and the training speed drawn for it; written before the first round",
      "writer": "simulator/fl-experiment.cc",
      "columns": [
        {"name": "client", "type": "int", "unit": "", "description": "client index, as in `clients.csv`"},
        {"name": "group", "type": "string", "unit": "", "description": "name of the client's group"},
        {"name": "samples_per_second", "type": "float", "unit": "examples/s", "description": "training speed of the client: its group's `compute.samples_per_second`, or the value drawn for it from that distribution"},
        {"name": "hub", "type": "string", "empty": true, "unit": "", "description": "the hub the client hangs off, as in `clients.csv`; empty for a client of the aggregation router"}
      ]
    },
    {
      "file": "links.csv",
      "description": "one row per link direction every `output.link_sample_s` seconds (default 1; 0: no file)",
      "writer": "models/ns3/helper/link-sampler.cc",
      "columns": [
        {"name": "time_s", "type": "float", "unit": "s", "description": "end of the sampling interval"},
        {"name": "link", "type": "string", "unit": "", "description": "link direction, as above (hub links: `hub-<name>-up` / `-down`)"},
        {"name": "capacity_bps", "type": "int", "unit": "bit/s", "description": "the link's capacity at `time_s`: p2p and core the fixed rate (p2p `rate_down` for a downlink of its own); microwave the rate of the modulation in use (0 while out); trace the current trace rate of the direction (0 while out); lte what one UE alone in its cell would be granted at its SINR (all RBs, at the MCS ns-3's schedulers derive from it; 0 below CQI 1), the same in both directions; 0 on any link during a scripted outage (`faults.link_outages`, `faults.server_outages`)"},
        {"name": "throughput_bps", "type": "int", "unit": "bit/s", "description": "bytes the receiving device delivered during the interval × 8 / interval: wire bytes (PPP, IP, TCP/UDP headers, retransmissions included) of all traffic, background (`backhaul.background`) included, packets lost to link errors or outages excluded (lte: IP packets the PGW receives from the UE, or the UE's LTE interface receives; network.transport `flow`: the flows' rates integrated over the interval, plus their ACK bytes)"},
        {"name": "queue_bytes", "type": "int", "empty": true, "unit": "B", "description": "backlog at the sending end at `time_s`: the device queue plus the traffic-control queue discipline in front of it (the host's pfifo_fast at a client, the core queue at the router's core port); empty for lte (the backlog is in RLC buffers ns-3 does not expose); 0 with network.transport `flow`, whose fluid links have no queues"},
        {"name": "snr_db", "type": "float", "empty": true, "unit": "dB", "description": "microwave: clear-sky SNR minus the fade at `time_s`; lte: the UE's uplink SINR as its eNB last measured it (SRS), before the first measurement the path-loss SNR; empty for links without an SNR"}
      ]
    }
  ]
}
)trace-columns";
} // namespace fedran
