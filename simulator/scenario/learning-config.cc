// ToConfig's reading of the learning keys ("data", "model", "training") and the checks that
// involve several of them.

#include "simulator/scenario/config-readers.h"

#include <stdexcept>
#include <string>
#include <vector>

namespace fedran
{

namespace
{

using nlohmann::json;

CsvOptions::Header
CsvHeader(const std::string& name)
{
    return name == "yes"  ? CsvOptions::Header::Yes
           : name == "no" ? CsvOptions::Header::No
                          : CsvOptions::Header::Auto;
}

CsvOptions::Scaling
CsvScaling(const std::string& name)
{
    return name == "divide"   ? CsvOptions::Scaling::Divide
           : name == "minmax" ? CsvOptions::Scaling::MinMax
                              : CsvOptions::Scaling::None;
}

void
ReadCsv(const json& data, ScenarioConfig::Data& out, std::vector<std::string>& errors)
{
    if (!data.contains("csv"))
    {
        if (out.dataset == "csv")
        {
            errors.push_back("data.csv: required with dataset \"csv\" (the train and test files)");
        }
        return;
    }
    const json& csv = data.at("csv");
    out.csvTrain = csv.at("train").get<std::string>();
    out.csvTest = csv.at("test").get<std::string>();
    const json& label = csv.at("label");
    if (label.is_string())
    {
        out.csv.labelName = label.get<std::string>();
    }
    else
    {
        out.csv.labelIndex = label.get<int64_t>();
    }
    out.csv.header = CsvHeader(csv.at("header").get<std::string>());
    const std::string separator = csv.at("separator").get<std::string>();
    if (separator.size() != 1)
    {
        errors.push_back("data.csv.separator: \"" + separator + "\" must be one character");
    }
    out.csv.separator = separator.empty() ? ',' : separator[0];
    out.csv.scaling = CsvScaling(csv.at("scaling").get<std::string>());
    out.csv.divisor = csv.at("divisor").get<double>();
}

SizeSpec
ReadSizeSpec(const json& sizes)
{
    SizeSpec spec;
    spec.kind = sizes.at("type") == "lognormal" ? SizeSpec::Kind::Lognormal : SizeSpec::Kind::Equal;
    spec.sigma = sizes.at("sigma").get<double>();
    return spec;
}

void
ReadSynthetic(const json& synthetic,
              ScenarioConfig::Data::Synthetic& out,
              std::vector<std::string>& errors)
{
    const std::string path = "data.synthetic";
    out.alpha = synthetic.at("alpha").get<double>();
    out.beta = synthetic.at("beta").get<double>();
    out.features = ReadUint32(synthetic.at("features"), path + ".features", errors);
    out.classes = ReadUint32(synthetic.at("classes"), path + ".classes", errors);
    out.testFraction = synthetic.at("test_fraction").get<double>();
    out.onDemand = synthetic.at("generate").get<std::string>() == "on_demand";
    out.testClients = ReadUint32(synthetic.at("test_clients"), path + ".test_clients", errors);
    const json& samples = synthetic.at("samples");
    out.samples = ReadSizeSpec(samples);
    out.samples.mu = samples.at("mu").get<double>();
    out.samples.base = ReadUint32(samples.at("base"), path + ".samples.base", errors);
    out.samples.cap = ReadUint32(samples.at("cap"), path + ".samples.cap", errors);
}

void
ReadCellTraffic(const json& block,
                ScenarioConfig::Data::CellTraffic& out,
                bool used,
                std::vector<std::string>& errors)
{
    const std::string path = "data.cell_traffic";
    out.format = block.at("format").get<std::string>();
    out.path = block.at("path").get<std::string>();
    out.signal = block.at("signal").get<std::string>();
    out.cells = ReadUint32(block.at("cells"), path + ".cells", errors);
    out.days = ReadUint32(block.at("days"), path + ".days", errors);
    out.seed = block.at("seed").get<uint64_t>();
    out.windows.window = ReadUint32(block.at("window"), path + ".window", errors);
    out.windows.periodDays = ReadUint32(block.at("period_days"), path + ".period_days", errors);
    out.windows.horizon = ReadUint32(block.at("horizon"), path + ".horizon", errors);
    out.windows.testDays = ReadUint32(block.at("test_days"), path + ".test_days", errors);
    if (!used)
    {
        return;
    }
    if (out.format == "milan" && out.path.empty())
    {
        errors.push_back(path + ".path: required with format \"milan\" (the folder of "
                                "sms-call-internet-mi-YYYY-MM-DD.txt files)");
    }
    if (out.format == "synthetic" && out.cells == 0)
    {
        errors.push_back(path + ".cells: format \"synthetic\" generates at least one cell");
    }
    if (out.windows.periodDays > 0 && out.windows.horizon > kMilanStepsPerDay)
    {
        errors.push_back(path + ".horizon: " + std::to_string(out.windows.horizon) +
                         " steps is more than a day, so the period_days values would lie after "
                         "the window (set period_days 0 or a shorter horizon)");
    }
}

void
ReadData(const json& data, ScenarioConfig::Data& out, std::vector<std::string>& errors)
{
    out.dataset = data.at("dataset").get<std::string>();
    out.path = data.at("path").get<std::string>();
    ReadCsv(data, out, errors);
    ReadSynthetic(data.at("synthetic"), out.synthetic, errors);
    const bool traffic = out.dataset == "cell-traffic";
    ReadCellTraffic(data.at("cell_traffic"), out.cellTraffic, traffic, errors);

    const json& partition = data.at("partition");
    out.partition = partition.at("type").get<std::string>();
    out.alpha = partition.at("alpha").get<double>();
    out.minSamples = ReadUint32(partition.at("min_samples"), "data.partition.min_samples", errors);
    out.shardsPerClient =
        ReadUint32(partition.at("shards_per_client"), "data.partition.shards_per_client", errors);
    out.sizes = ReadSizeSpec(partition.at("sizes"));

    const bool skewedSizes = out.sizes.kind == SizeSpec::Kind::Lognormal;
    if (out.dataset == "synthetic" && (out.partition != "iid" || skewedSizes))
    {
        errors.push_back("data.partition: dataset \"synthetic\" is generated per client (sizes "
                         "from data.synthetic.samples), so the partition must stay type \"iid\" "
                         "with equal sizes");
    }
    else if (traffic && (out.partition == "dirichlet" || out.partition == "shards"))
    {
        errors.push_back("data.partition.type: \"" + out.partition +
                         "\" splits by label, and dataset \"cell-traffic\" is a forecasting "
                         "task without labels (use \"by_cell\" or \"iid\")");
    }
    else if (!traffic && out.partition == "by_cell")
    {
        errors.push_back("data.partition.type: \"by_cell\" needs dataset \"cell-traffic\" "
                         "(the other datasets have no cells)");
    }
    else if (skewedSizes && out.partition != "iid")
    {
        errors.push_back("data.partition.sizes.type: \"lognormal\" quantity skew needs partition "
                         "type \"iid\" (" +
                         out.partition + " sets the client sizes itself)");
    }
}

void
ReadSchedule(const json& schedule, TrainingConfig& training, std::vector<std::string>& errors)
{
    const std::string path = "training.lr_schedule";
    const std::string type = schedule.at("type").get<std::string>();
    training.lrSchedule = ParseLrSchedule(type); // the schema's enum holds the same names
    const bool takesDecay = type == "step" || type == "exponential";
    const bool takesStepRounds = type == "step";
    if (schedule.contains("decay"))
    {
        training.lrDecay = schedule.at("decay").get<double>();
        if (!takesDecay)
        {
            errors.push_back(path + ".decay: not a parameter of schedule \"" + type + "\"");
        }
    }
    else if (takesDecay)
    {
        errors.push_back(path + ".decay: required by schedule \"" + type + "\"");
    }
    if (schedule.contains("step_rounds"))
    {
        training.lrStepRounds =
            ReadUint32(schedule.at("step_rounds"), path + ".step_rounds", errors);
        if (!takesStepRounds)
        {
            errors.push_back(path + ".step_rounds: not a parameter of schedule \"" + type + "\"");
        }
    }
    else if (takesStepRounds)
    {
        errors.push_back(path + ".step_rounds: required by schedule \"step\"");
    }
}

void
ReadTraining(const json& training,
             uint32_t rounds,
             TrainingConfig& out,
             std::vector<std::string>& errors)
{
    out.localEpochs = ReadUint32(training.at("local_epochs"), "training.local_epochs", errors);
    if (training.contains("local_steps"))
    {
        out.localSteps = ReadUint32(training.at("local_steps"), "training.local_steps", errors);
    }
    out.batchSize = ReadUint32(training.at("batch_size"), "training.batch_size", errors);
    out.lr = training.at("lr").get<double>();
    out.momentum = training.at("momentum").get<double>();
    out.weightDecay = training.at("weight_decay").get<double>();
    out.proxMu = training.at("fedprox_mu").get<double>();
    ReadSchedule(training.at("lr_schedule"), out, errors);
    const json& pipelining = training.at("pipelining");
    out.pipelining.layerwise = pipelining.at("mode").get<std::string>() == "layerwise";
    out.pipelining.bucketBytes = pipelining.at("bucket_bytes").get<uint64_t>();
    out.totalRounds = rounds;
    try
    {
        ValidateTrainingConfig(out);
    }
    catch (const std::invalid_argument& e)
    {
        // The schema's bounds are the trainer's; this catches only a reader/schema mismatch.
        errors.push_back(std::string("training: ") + e.what());
    }
}

} // namespace

void
ReadLearning(const json& scenario, ScenarioConfig& config, std::vector<std::string>& errors)
{
    ReadData(scenario.at("data"), config.data, errors);
    try
    {
        config.model = ModelSpecWithDefaults(scenario.at("model"));
        config.modelType = config.model.at("type").get<std::string>();
    }
    catch (const std::invalid_argument& e)
    {
        errors.push_back(e.what()); // the factory's messages start with the JSON path
    }
    ReadTraining(scenario.at("training"), config.rounds, config.training, errors);
}

void
RecordLearning(json& scenario, const ScenarioConfig& config)
{
    scenario["model"] = config.model;
    if (config.data.dataset != "synthetic")
    {
        scenario["data"].erase("synthetic");
    }
    if (config.data.dataset != "cell-traffic")
    {
        scenario["data"].erase("cell_traffic");
    }
}

void
CheckLearningTask(const ScenarioConfig& config, std::vector<std::string>& errors)
{
    if (config.data.dataset != "cell-traffic")
    {
        return;
    }
    // Features defined on class labels have nothing to act on in a forecasting task.
    for (size_t g = 0; g < config.groups.size(); ++g)
    {
        if (config.groups[g].attack.type == "label_flip")
        {
            errors.push_back("clients.groups." + std::to_string(g) +
                             ".attack.type: \"label_flip\" flips class labels, and dataset "
                             "\"cell-traffic\" is a forecasting task without labels");
        }
    }
}

} // namespace fedran
