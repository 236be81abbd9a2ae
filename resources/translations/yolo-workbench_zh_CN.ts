<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>QObject</name>
    <message>
        <source>not run</source>
        <translation>未运行</translation>
    </message>
    <message>
        <source>PASSED</source>
        <translation>通过</translation>
    </message>
    <message>
        <source>FAILED</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>boxes %1 px, scores %2 (%3 images)</source>
        <translation>框 %1 像素，分数 %2（%3 张图像）</translation>
    </message>
    <message>
        <source>%1 is neither a dataset (%2) nor training arguments (%3)</source>
        <translation>%1 既不是数据集（%2），也不是训练参数（%3）</translation>
    </message>
    <message>
        <source>%1 is not a usable data.yaml: %2</source>
        <translation>%1 不是可用的 data.yaml：%2</translation>
    </message>
    <message>
        <source>%1 does not exist</source>
        <translation>%1 不存在</translation>
    </message>
    <message>
        <source>%1 cannot be read (permissions)</source>
        <translation>%1 无法读取（权限）</translation>
    </message>
    <message>
        <source>%1 is a folder without a data.yaml, results.csv or weights/: open a dataset&apos;s data.yaml, a run folder or a weights file</source>
        <translation>%1 是一个没有 data.yaml、results.csv 或 weights/ 的文件夹：请打开数据集的 data.yaml、运行文件夹或权重文件</translation>
    </message>
    <message>
        <source>%1 could not be opened as weights: %2 (the GUI opens a data.yaml, a run folder, weights or a YAML of training arguments)</source>
        <translation>%1 无法作为权重打开：%2（界面可打开 data.yaml、运行文件夹、权重或训练参数 YAML）</translation>
    </message>
    <message>
        <source>Dataset YAML (*.yaml *.yml)</source>
        <translation>数据集 YAML (*.yaml *.yml)</translation>
    </message>
    <message>
        <source>Model YAML (*.yaml *.yml)</source>
        <translation>模型 YAML (*.yaml *.yml)</translation>
    </message>
    <message>
        <source>Weights (%1)</source>
        <translation>权重 (%1)</translation>
    </message>
    <message>
        <source>All files (*)</source>
        <translation>所有文件 (*)</translation>
    </message>
    <message>
        <source>Datasets, training arguments and weights (*.yaml *.yml %1)</source>
        <translation>数据集、训练参数和权重 (*.yaml *.yml %1)</translation>
    </message>
    <message>
        <source>about %1</source>
        <translation>约 %1</translation>
    </message>
    <message>
        <source>downloaded</source>
        <translation>已下载</translation>
    </message>
    <message>
        <source>will download</source>
        <translation>将下载</translation>
    </message>
    <message>
        <source>COCO-pretrained %1 (Ultralytics, AGPL-3.0); downloaded into %2 on first use</source>
        <translation>COCO 预训练的 %1（Ultralytics，AGPL-3.0）；首次使用时下载到 %2</translation>
    </message>
    <message>
        <source>results.csv could not be read (%1): no charts</source>
        <translation>无法读取 results.csv（%1）：没有图表</translation>
    </message>
    <message>
        <source>results.csv is missing: no charts</source>
        <translation>缺少 results.csv：没有图表</translation>
    </message>
    <message>
        <source>args.yaml could not be read (%1): no dataset, schedule or resume settings</source>
        <translation>无法读取 args.yaml（%1）：没有数据集、训练计划或继续训练的设置</translation>
    </message>
    <message>
        <source>args.yaml is missing: no dataset, schedule or resume settings</source>
        <translation>缺少 args.yaml：没有数据集、训练计划或继续训练的设置</translation>
    </message>
    <message>
        <source>the dataset %1 named in args.yaml was not found</source>
        <translation>未找到 args.yaml 中指定的数据集 %1</translation>
    </message>
    <message>
        <source>its log could not be read (%1)</source>
        <translation>无法读取其日志（%1）</translation>
    </message>
    <message>
        <source>%1 is a tune folder without a finished run: %2</source>
        <translation>%1 是调参文件夹，但还没有完成的训练：%2</translation>
    </message>
    <message>
        <source>Weights and exported models (%1 *.onnx *.torchscript)</source>
        <translation>权重和导出的模型 (%1 *.onnx *.torchscript)</translation>
    </message>
</context>
<context>
    <name>ywb::gui::AugmentationTab</name>
    <message>
        <source>Reroll</source>
        <translation>重新抽样</translation>
    </message>
    <message>
        <source>samples</source>
        <translation>样本数</translation>
    </message>
    <message>
        <source>range: %1 .. %2</source>
        <translation>范围：%1 .. %2</translation>
    </message>
    <message>
        <source>Preview tile size (the training imgsz is used when it is smaller)</source>
        <translation>预览图块大小（训练 imgsz 更小时使用 imgsz）</translation>
    </message>
    <message>
        <source>tile px</source>
        <translation>图块像素</translation>
    </message>
    <message>
        <source>Open a dataset in the Dataset tab.</source>
        <translation>请先在“数据集”页打开一个数据集。</translation>
    </message>
    <message>
        <source>Rendering...</source>
        <translation>正在渲染……</translation>
    </message>
    <message>
        <source>Preview failed: %1</source>
        <translation>预览失败：%1</translation>
    </message>
    <message>
        <source>Rendered %1 sample(s) in %2 ms (seed %3)</source>
        <translation>已渲染 %1 个样本，用时 %2 毫秒（种子 %3）</translation>
    </message>
    <message>
        <source>rect=true: one image per sample at its own rectangular shape; no Mosaic, MixUp or CutMix, as training</source>
        <translation>rect=true：每个样本一张图像，按其自身的矩形尺寸；与训练时一样，不使用 Mosaic、MixUp 或 CutMix</translation>
    </message>
</context>
<context>
    <name>ywb::gui::BenchmarkPanel</name>
    <message>
        <source>data.yaml whose split each export is validated on</source>
        <translation>用于验证每个导出文件的数据集 data.yaml（其中的划分）</translation>
    </message>
    <message>
        <source>Data...</source>
        <translation>数据...</translation>
    </message>
    <message>
        <source>Benchmark</source>
        <translation>基准测试</translation>
    </message>
    <message>
        <source>Validates the weights, exports them to every format (safetensors, ONNX, ONNX fp16, TorchScript; YOLO26 also its one-to-many graph) into a new runs/detect/benchmark folder and validates each export the same way</source>
        <translation>验证权重，将其导出为每种格式（safetensors、ONNX、ONNX fp16、TorchScript；YOLO26 还有其一对多图）到新的 runs/detect/benchmark 文件夹，并以相同方式验证每个导出文件</translation>
    </message>
    <message>
        <source>Data</source>
        <translation>数据</translation>
    </message>
    <message>
        <source>Format</source>
        <translation>格式</translation>
    </message>
    <message>
        <source>Size (MB)</source>
        <translation>大小 (MB)</translation>
    </message>
    <message>
        <source>mAP50-95</source>
        <translation>mAP50-95</translation>
    </message>
    <message>
        <source>mAP50</source>
        <translation>mAP50</translation>
    </message>
    <message>
        <source>Inference (ms/im)</source>
        <translation>推理 (ms/图)</translation>
    </message>
    <message>
        <source>Total (ms/im)</source>
        <translation>总计 (ms/图)</translation>
    </message>
    <message>
        <source>Runtime, or why it failed</source>
        <translation>运行时，或失败原因</translation>
    </message>
    <message>
        <source>Choose the weights above and a data.yaml to benchmark on</source>
        <translation>请在上方选择权重，并选择用于基准测试的 data.yaml</translation>
    </message>
    <message>
        <source>Benchmarking %1 on %2; exports in %3 ...</source>
        <translation>正在 %2 上对 %1 进行基准测试；导出文件在 %3 ...</translation>
    </message>
    <message>
        <source>failed: %1</source>
        <translation>失败：%1</translation>
    </message>
    <message>
        <source>Benchmark failed: %1</source>
        <translation>基准测试失败：%1</translation>
    </message>
    <message>
        <source>%1 formats, %2 failed (see their rows); the table is in %3/benchmarks.txt</source>
        <translation>%1 种格式，%2 种失败（见其所在行）；表格在 %3/benchmarks.txt</translation>
    </message>
    <message>
        <source>%1 formats, all validated; the table is in %2/benchmarks.txt</source>
        <translation>%1 种格式，全部验证通过；表格在 %2/benchmarks.txt</translation>
    </message>
</context>
<context>
    <name>ywb::gui::ClassHistogram</name>
    <message>
        <source>boxes</source>
        <translation>框数</translation>
    </message>
    <message>
        <source>%1 (class %2): %3 boxes</source>
        <translation>%1（类别 %2）：%3 个框</translation>
    </message>
    <message>
        <source>others (%1 classes)</source>
        <translation>其他（%1 个类别）</translation>
    </message>
    <message>
        <source>others, %1 boxes: %2</source>
        <translation>其他，%1 个框：%2</translation>
    </message>
</context>
<context>
    <name>ywb::gui::CliTrainingRun</name>
    <message>
        <source>could not start %1: %2</source>
        <translation>无法启动 %1：%2</translation>
    </message>
    <message>
        <source>$ %1 %2</source>
        <translation>$ %1 %2</translation>
    </message>
    <message>
        <source>crashed</source>
        <translation>崩溃</translation>
    </message>
    <message>
        <source>exited with status %1</source>
        <translation>以状态 %1 退出</translation>
    </message>
    <message>
        <source>ywb train %1 before the run finished%2</source>
        <translation>ywb train 在训练结束前%1%2</translation>
    </message>
</context>
<context>
    <name>ywb::gui::DatasetTab</name>
    <message>
        <source>Open data.yaml...</source>
        <translation>打开 data.yaml...</translation>
    </message>
    <message>
        <source>Rescan</source>
        <translation>重新扫描</translation>
    </message>
    <message>
        <source>No dataset open.</source>
        <translation>未打开数据集。</translation>
    </message>
    <message>
        <source>Recent datasets</source>
        <translation>最近的数据集</translation>
    </message>
    <message>
        <source>Boxes per class (train)</source>
        <translation>每类框数（训练集）</translation>
    </message>
    <message>
        <source>Create from folder...</source>
        <translation>从文件夹创建……</translation>
    </message>
    <message>
        <source>Write a data.yaml for a folder of images and YOLO labels (images/train + images/val, train/images + val/images, or one images/ folder split 9:1) and open it</source>
        <translation>为包含图像和 YOLO 标注的文件夹生成 data.yaml（images/train + images/val、train/images + val/images，或按 9:1 划分的单个 images/ 文件夹）并打开它</translation>
    </message>
    <message>
        <source>Item</source>
        <translation>项目</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>值</translation>
    </message>
    <message>
        <source>Double-click a problem to open its image</source>
        <translation>双击问题以打开对应图像</translation>
    </message>
    <message>
        <source>boxes</source>
        <translation>框数</translation>
    </message>
    <message>
        <source>Open a data.yaml to browse its images with their ground-truth boxes.</source>
        <translation>打开 data.yaml 以浏览图像及其真值框。</translation>
    </message>
    <message>
        <source>Open dataset</source>
        <translation>打开数据集</translation>
    </message>
    <message>
        <source>Dataset folder (images and labels)</source>
        <translation>数据集文件夹（图像和标注）</translation>
    </message>
    <message>
        <source>data.yaml exists</source>
        <translation>data.yaml 已存在</translation>
    </message>
    <message>
        <source>%1 already exists. Open it, or replace it with one written from the folder?</source>
        <translation>%1 已存在。打开它，还是用根据文件夹生成的新文件替换它？</translation>
    </message>
    <message>
        <source>Open it</source>
        <translation>打开</translation>
    </message>
    <message>
        <source>Replace it</source>
        <translation>替换</translation>
    </message>
    <message>
        <source>Looking for images and labels in %1 ...</source>
        <translation>正在 %1 中查找图像和标注……</translation>
    </message>
    <message>
        <source>Could not create a data.yaml: %1</source>
        <translation>无法创建 data.yaml：%1</translation>
    </message>
    <message>
        <source>Scanning %1 ...</source>
        <translation>正在扫描 %1 ……</translation>
    </message>
    <message>
        <source>Could not open the dataset: %1</source>
        <translation>无法打开数据集：%1</translation>
    </message>
    <message>
        <source>%1 images, %2 boxes</source>
        <translation>%1 张图像，%2 个框</translation>
    </message>
    <message>
        <source>with labels</source>
        <translation>有标注</translation>
    </message>
    <message>
        <source>backgrounds</source>
        <translation>背景图</translation>
    </message>
    <message>
        <source>orphan label files</source>
        <translation>无图像的标注文件</translation>
    </message>
    <message>
        <source>corrupt (excluded)</source>
        <translation>损坏（已排除）</translation>
    </message>
    <message>
        <source>duplicate rows removed</source>
        <translation>已删除的重复行</translation>
    </message>
    <message>
        <source>zero-area rows dropped</source>
        <translation>已丢弃的零面积行</translation>
    </message>
    <message>
        <source>scan</source>
        <translation>扫描</translation>
    </message>
    <message>
        <source>from cache, %1 s</source>
        <translation>来自缓存，%1 秒</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 秒</translation>
    </message>
    <message>
        <source>problems</source>
        <translation>问题</translation>
    </message>
    <message>
        <source>%1: %2 classes, %3 problem(s)%4</source>
        <translation>%1：%2 个类别，%3 个问题%4</translation>
    </message>
    <message>
        <source>  (not ready for training)</source>
        <translation>  （尚不能用于训练）</translation>
    </message>
    <message>
        <source>Dataset %1 scanned: %2 problem(s)</source>
        <translation>数据集 %1 扫描完成：%2 个问题</translation>
    </message>
    <message>
        <source>Cannot read %1</source>
        <translation>无法读取 %1</translation>
    </message>
    <message>
        <source>Box size (train)</source>
        <translation>框尺寸（训练集）</translation>
    </message>
    <message>
        <source>width (fraction of image width)</source>
        <translation>宽度（占图像宽度的比例）</translation>
    </message>
    <message>
        <source>height (fraction of image height)</source>
        <translation>高度（占图像高度的比例）</translation>
    </message>
    <message>
        <source>The split whose images are listed</source>
        <translation>列出其图像的数据划分</translation>
    </message>
    <message>
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Boxes</source>
        <translation>框数</translation>
    </message>
    <message>
        <source>no boxes: trained on as background</source>
        <translation>无框：作为背景参与训练</translation>
    </message>
</context>
<context>
    <name>ywb::gui::ExportTab</name>
    <message>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <source>Weights</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>Formats</source>
        <translation>格式</translation>
    </message>
    <message>
        <source>a run&apos;s weights/best.safetensors (checkpoint or exported weights)</source>
        <translation>某次训练的 weights/best.safetensors（检查点或导出的权重）</translation>
    </message>
    <message>
        <source>Browse...</source>
        <translation>浏览……</translation>
    </message>
    <message>
        <source>safetensors (EMA state dict, Ultralytics key names, metadata)</source>
        <translation>safetensors（EMA 状态字典、Ultralytics 键名、元数据）</translation>
    </message>
    <message>
        <source>This build has no ONNX (install libonnx-dev)</source>
        <translation>此版本不含 ONNX 支持（请安装 libonnx-dev）</translation>
    </message>
    <message>
        <source>as trained</source>
        <translation>与训练时相同</translation>
    </message>
    <message>
        <source>Image size</source>
        <translation>图像尺寸</translation>
    </message>
    <message>
        <source>fp16 weights (ONNX: fp16 storage with Cast nodes, fp32 compute and I/O)</source>
        <translation>fp16 权重（ONNX：以 fp16 存储并插入 Cast 节点，计算和输入输出为 fp32）</translation>
    </message>
    <message>
        <source>Precision</source>
        <translation>数值精度</translation>
    </message>
    <message>
        <source>dynamic batch, height and width</source>
        <translation>动态批大小、高度和宽度</translation>
    </message>
    <message>
        <source>ONNX shapes</source>
        <translation>ONNX 形状</translation>
    </message>
    <message>
        <source>ONNX opset</source>
        <translation>ONNX 算子集版本</translation>
    </message>
    <message>
        <source>Verify</source>
        <translation>校验</translation>
    </message>
    <message>
        <source>image or folder (empty: a synthetic image)</source>
        <translation>图像或文件夹（留空：使用合成图像）</translation>
    </message>
    <message>
        <source>Folder...</source>
        <translation>文件夹……</translation>
    </message>
    <message>
        <source> images</source>
        <translation> 张图像</translation>
    </message>
    <message>
        <source>Verify on</source>
        <translation>校验数据</translation>
    </message>
    <message>
        <source>Format</source>
        <translation>格式</translation>
    </message>
    <message>
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <source>Input / output</source>
        <translation>输入 / 输出</translation>
    </message>
    <message>
        <source>Verification</source>
        <translation>校验</translation>
    </message>
    <message>
        <source>Max |diff|</source>
        <translation>最大 |差值|</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>Verification images</source>
        <translation>校验图像</translation>
    </message>
    <message>
        <source>choose the weights to export</source>
        <translation>请选择要导出的权重</translation>
    </message>
    <message>
        <source>Exporting %1 ...</source>
        <translation>正在导出 %1 ……</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 秒</translation>
    </message>
    <message>
        <source>Exported, but a verification FAILED (see the report)</source>
        <translation>已导出，但有一项校验失败（见报告）</translation>
    </message>
    <message numerus="yes">
        <source>Exported %n file(s), all verified</source>
        <translation>
            <numerusform>已导出 %n 个文件，全部通过校验</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Exported %n file(s); not every check could run</source>
        <translation>
            <numerusform>已导出 %n 个文件；部分校验未能运行</numerusform>
        </translation>
    </message>
    <message>
        <source>Export failed: %1</source>
        <translation>导出失败：%1</translation>
    </message>
    <message>
        <source>ONNX (fused graph, output [N, 4+nc, anchors], boxes xywh in pixels; YOLO26: see below)</source>
        <translation>ONNX（融合图，输出 [N, 4+nc, anchors]，框为像素 xywh；YOLO26：见下方）</translation>
    </message>
    <message>
        <source>YOLO26: NMS-free graph, output [N, max_det, 6] (x1, y1, x2, y2, score, class); off: the one-to-many head as above</source>
        <translation>YOLO26：免 NMS 图，输出 [N, max_det, 6]（x1, y1, x2, y2, 分数, 类别）；关闭：如上的一对多检测头</translation>
    </message>
    <message>
        <source>End-to-end</source>
        <translation>端到端</translation>
    </message>
    <message>
        <source>ONNX and TorchScript input size; rounded up to a multiple of the model&apos;s largest stride</source>
        <translation>ONNX 和 TorchScript 的输入尺寸；向上取整为模型最大步长的倍数</translation>
    </message>
    <message>
        <source>The fixed batch of a static ONNX graph and of a TorchScript model</source>
        <translation>静态 ONNX 图和 TorchScript 模型的固定批大小</translation>
    </message>
    <message>
        <source>Batch</source>
        <translation>批大小</translation>
    </message>
    <message>
        <source>TorchScript (fused model traced at a fixed size and batch, fp32)</source>
        <translation>TorchScript（以固定尺寸和批大小追踪的融合模型，fp32）</translation>
    </message>
    <message>
        <source>Output as ONNX&apos;s; loads in LibTorch (torch::jit::load) and PyTorch (torch.jit.load), and in ywb val and predict</source>
        <translation>输出与 ONNX 相同；可由 LibTorch (torch::jit::load)、PyTorch (torch.jit.load) 以及 ywb val 和 predict 加载</translation>
    </message>
    <message>
        <source>read every export back; run ONNX and TorchScript against LibTorch</source>
        <translation>读回每个导出文件；将 ONNX 和 TorchScript 与 LibTorch 对比运行</translation>
    </message>
    <message>
        <source>ONNX in OpenCV DNN (ONNX Runtime for YOLO26&apos;s end-to-end graph), TorchScript in LibTorch&apos;s TorchScript interpreter</source>
        <translation>ONNX 用 OpenCV DNN 运行（YOLO26 端到端图用 ONNX Runtime），TorchScript 用 LibTorch 的 TorchScript 解释器运行</translation>
    </message>
    <message>
        <source>Off while TorchScript is chosen: it is traced in fp32</source>
        <translation>选择 TorchScript 时不可用：它以 fp32 追踪</translation>
    </message>
    <message>
        <source>Report</source>
        <translation>报告</translation>
    </message>
    <message>
        <source>Benchmark every format (ywb benchmark)</source>
        <translation>逐个格式基准测试（ywb benchmark）</translation>
    </message>
</context>
<context>
    <name>ywb::gui::FeatureMapImages</name>
    <message>
        <source>%1 (stride %2) %3x%4</source>
        <translation>%1（步长 %2）%3x%4</translation>
    </message>
</context>
<context>
    <name>ywb::gui::FeatureMapsTab</name>
    <message>
        <source>Show</source>
        <translation>显示</translation>
    </message>
    <message>
        <source>Weights</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>Image</source>
        <translation>图像</translation>
    </message>
    <message>
        <source>Browse...</source>
        <translation>浏览……</translation>
    </message>
    <message>
        <source>imgsz </source>
        <translation>imgsz </translation>
    </message>
    <message>
        <source>Pick an image and a layer.</source>
        <translation>请选择一张图像和一个层。</translation>
    </message>
    <message>
        <source>Channel</source>
        <translation>通道</translation>
    </message>
    <message>
        <source>Mean</source>
        <translation>均值</translation>
    </message>
    <message>
        <source>Std</source>
        <translation>标准差</translation>
    </message>
    <message>
        <source>Min</source>
        <translation>最小值</translation>
    </message>
    <message>
        <source>Max</source>
        <translation>最大值</translation>
    </message>
    <message>
        <source>Images (*.jpg *.jpeg *.png *.bmp)</source>
        <translation>图像 (*.jpg *.jpeg *.png *.bmp)</translation>
    </message>
    <message>
        <source>Cannot read %1</source>
        <translation>无法读取 %1</translation>
    </message>
    <message>
        <source>Computing...</source>
        <translation>正在计算……</translation>
    </message>
    <message>
        <source>Feature maps failed: %1</source>
        <translation>特征图计算失败：%1</translation>
    </message>
    <message>
        <source>Layer %1 (%2): %3 channels of %4x%5%6; each tile scaled to its own min..max</source>
        <translation>第 %1 层（%2）：%3 个 %4x%5 通道%6；每个图块按自身的最小值..最大值缩放</translation>
    </message>
    <message>
        <source>, first %1 shown</source>
        <translation>，显示前 %1 个</translation>
    </message>
    <message>
        <source>Layer: index, module and output shape (channels x height x width) at the imgsz</source>
        <translation>层：序号、模块和在该 imgsz 下的输出形状（通道 x 高 x 宽）</translation>
    </message>
    <message>
        <source>Follow training</source>
        <translation>跟随训练</translation>
    </message>
    <message>
        <source>While a run trains in this window, show the maps of its current EMA weights, refreshed every few seconds</source>
        <translation>本窗口中训练进行时，显示其当前 EMA 权重的特征图，每隔几秒刷新</translation>
    </message>
    <message>
        <source>Follow training: no run is training in this window.</source>
        <translation>跟随训练：本窗口中没有正在进行的训练。</translation>
    </message>
    <message>
        <source>EMA weights of the running training, %1: </source>
        <translation>正在训练的 EMA 权重，%1：</translation>
    </message>
    <message>
        <source>a run&apos;s weights/last.safetensors (EMA weights), or official weights by name; empty = untrained model</source>
        <translation>某次训练的 weights/last.safetensors（EMA 权重），或按名称的官方权重；留空 = 未训练的模型</translation>
    </message>
    <message>
        <source>Feature maps: no weights %1: %2</source>
        <translation>特征图：没有权重 %1：%2</translation>
    </message>
    <message>
        <source>Weights %1: %2 (the weights cache)</source>
        <translation>权重 %1：%2（权重缓存）</translation>
    </message>
    <message>
        <source>one-to-one: best class score</source>
        <translation>一对一：最佳类别分数</translation>
    </message>
    <message>
        <source>one-to-many: best class score</source>
        <translation>一对多：最佳类别分数</translation>
    </message>
    <message>
        <source>best class score</source>
        <translation>最佳类别分数</translation>
    </message>
    <message>
        <source>Level</source>
        <translation>层级</translation>
    </message>
    <message>
        <source>Layer %1 (Detect): each anchor&apos;s best class score (the sigmoid of its class logits, maximum over the classes) at %2; one colour scale for every level, from 0 to the highest score</source>
        <translation>第 %1 层（Detect）：%2 上每个锚点的最佳类别分数（类别 logit 经 sigmoid 后在各类别中取最大值）；所有层级共用一个色标，从 0 到最高分数</translation>
    </message>
    <message>
        <source>one-to-one</source>
        <translation>一对一</translation>
    </message>
    <message>
        <source>one-to-many</source>
        <translation>一对多</translation>
    </message>
    <message>
        <source>Layer %1 (Detect, %2 branch): each anchor&apos;s best class score (the sigmoid of its class logits, maximum over the classes) at %3; one colour scale for every level, from 0 to the highest score</source>
        <translation>第 %1 层（Detect，%2分支）：%3 上每个锚点的最佳类别分数（类别 logit 经 sigmoid 后在各类别中取最大值）；所有层级共用一个色标，从 0 到最高分数</translation>
    </message>
</context>
<context>
    <name>ywb::gui::HyperparamsTab</name>
    <message>
        <source>Load YAML...</source>
        <translation>加载 YAML...</translation>
    </message>
    <message>
        <source>Save YAML...</source>
        <translation>保存 YAML...</translation>
    </message>
    <message>
        <source>Reset all to defaults</source>
        <translation>全部恢复默认</translation>
    </message>
    <message>
        <source>Ultralytics argument names and defaults; hover a name for its meaning and range.</source>
        <translation>采用 Ultralytics 的参数名和默认值；将鼠标悬停在名称上可查看含义和取值范围。</translation>
    </message>
    <message>
        <source>default: %1</source>
        <translation>默认值：%1</translation>
    </message>
    <message>
        <source>range: %1 .. %2</source>
        <translation>范围：%1 .. %2</translation>
    </message>
    <message>
        <source>choices: %1</source>
        <translation>可选值：%1</translation>
    </message>
    <message>
        <source>Reset %1 to %2</source>
        <translation>将 %1 重置为 %2</translation>
    </message>
    <message>
        <source>Load training arguments</source>
        <translation>加载训练参数</translation>
    </message>
    <message>
        <source>YAML (*.yaml *.yml);;All files (*)</source>
        <translation>YAML (*.yaml *.yml);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Save training arguments</source>
        <translation>保存训练参数</translation>
    </message>
    <message>
        <source>YAML (*.yaml *.yml)</source>
        <translation>YAML (*.yaml *.yml)</translation>
    </message>
    <message>
        <source>(empty)</source>
        <translation>（空）</translation>
    </message>
    <message>
        <source>%1=%2: expected one of %3</source>
        <translation>%1=%2：应为 %3 之一</translation>
    </message>
    <message>
        <source>Loaded %1</source>
        <translation>已加载 %1</translation>
    </message>
    <message>
        <source>Loaded %1; ignored keys this trainer does not use: %2</source>
        <translation>已加载 %1；忽略了本训练器不使用的键：%2</translation>
    </message>
    <message>
        <source>Could not load %1: %2</source>
        <translation>无法加载 %1：%2</translation>
    </message>
    <message>
        <source>Could not write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
    <message>
        <source>Saved %1</source>
        <translation>已保存 %1</translation>
    </message>
    <message>
        <source>Choose a file for %1</source>
        <translation>为 %1 选择文件</translation>
    </message>
    <message>
        <source>Choose %1</source>
        <translation>选择 %1</translation>
    </message>
    <message>
        <source>%1 was not accepted</source>
        <translation>%1 未被接受</translation>
    </message>
    <message>
        <source>CPU bf16: %1. On a CPU, amp=true trains in bf16 where the run measures it faster than fp32.</source>
        <translation>CPU bf16：%1。在 CPU 上，amp=true 会在本次运行测得 bf16 比 fp32 更快时使用 bf16 训练。</translation>
    </message>
    <message>
        <source>CPU bf16: %1. On a CPU, amp=true trains in fp32 here unless the run measures bf16 faster; amp_dtype=bf16 forces it.</source>
        <translation>CPU bf16：%1。在 CPU 上，除非本次运行测得 bf16 更快，amp=true 在此使用 fp32 训练；amp_dtype=bf16 可强制使用 bf16。</translation>
    </message>
</context>
<context>
    <name>ywb::gui::MainWindow</name>
    <message>
        <source>Dataset</source>
        <translation>数据集</translation>
    </message>
    <message>
        <source>Hyperparameters</source>
        <translation>超参数</translation>
    </message>
    <message>
        <source>Augmentation</source>
        <translation>数据增强</translation>
    </message>
    <message>
        <source>Training</source>
        <translation>训练</translation>
    </message>
    <message>
        <source>Feature maps</source>
        <translation>特征图</translation>
    </message>
    <message>
        <source>Predictions</source>
        <translation>预测</translation>
    </message>
    <message>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <source>Runs</source>
        <translation>运行记录</translation>
    </message>
    <message>
        <source>System</source>
        <translation>系统</translation>
    </message>
    <message>
        <source>Log</source>
        <translation>日志</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>Dark theme</source>
        <translation>深色主题</translation>
    </message>
    <message>
        <source>Light theme</source>
        <translation>浅色主题</translation>
    </message>
    <message>
        <source>&amp;Tools</source>
        <translation>工具(&amp;T)</translation>
    </message>
    <message>
        <source>Environment &amp;doctor</source>
        <translation>环境诊断(&amp;D)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;About</source>
        <translation>关于(&amp;A)</translation>
    </message>
    <message>
        <source>About YOLO Workbench</source>
        <translation>关于 YOLO Workbench</translation>
    </message>
    <message>
        <source>Ready</source>
        <translation>就绪</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <source>English</source>
        <translation>English</translation>
    </message>
    <message>
        <source>Chinese (Simplified)</source>
        <translation>简体中文</translation>
    </message>
    <message>
        <source>The language changes when the program starts again.</source>
        <translation>语言将在程序重新启动后生效。</translation>
    </message>
    <message>
        <source>YOLO Workbench %1</source>
        <translation>YOLO 工作台 %1</translation>
    </message>
    <message>
        <source>YOLO Workbench %1 started</source>
        <translation>YOLO 工作台 %1 已启动</translation>
    </message>
    <message>
        <source>&lt;b&gt;YOLO Workbench %1&lt;/b&gt;&lt;br&gt;Native training of YOLO object detectors on LibTorch.</source>
        <translation>&lt;b&gt;YOLO 工作台 %1&lt;/b&gt;&lt;br&gt;基于 LibTorch 的 YOLO 目标检测器原生训练工具。</translation>
    </message>
    <message>
        <source>Opening dataset %1</source>
        <translation>正在打开数据集 %1</translation>
    </message>
    <message>
        <source>Opened run %1</source>
        <translation>已打开运行 %1</translation>
    </message>
    <message>
        <source>Opened weights %1 (Predictions, Feature maps, Export)</source>
        <translation>已打开权重 %1（预测、特征图、导出）</translation>
    </message>
    <message>
        <source>Could not open %1: %2</source>
        <translation>无法打开 %1：%2</translation>
    </message>
    <message>
        <source>Opened training arguments %1</source>
        <translation>已打开训练参数 %1</translation>
    </message>
    <message>
        <source>Could not open: %1</source>
        <translation>无法打开：%1</translation>
    </message>
    <message>
        <source>Quick start: generating the shapes dataset in %1 ...</source>
        <translation>快速开始：正在 %1 中生成形状数据集……</translation>
    </message>
    <message>
        <source>Quick start: could not generate the dataset: %1</source>
        <translation>快速开始：无法生成数据集：%1</translation>
    </message>
    <message>
        <source>Quick start: %1 for %2 epochs at imgsz %3 on %4 is set up; press Start in the Training tab (about %5-%6 minutes on 2 CPU cores)</source>
        <translation>快速开始：已设置 %1，在 %4 上训练 %2 轮，imgsz %3；请在“训练”页点击“开始”（2 个 CPU 核心约 %5-%6 分钟）</translation>
    </message>
    <message>
        <source>Open</source>
        <translation>打开</translation>
    </message>
    <message>
        <source>Open folder</source>
        <translation>打开文件夹</translation>
    </message>
    <message>
        <source>&amp;Open...</source>
        <translation>打开(&amp;O)...</translation>
    </message>
    <message>
        <source>Open a data.yaml, weights (.pt, .safetensors) or a YAML of training arguments</source>
        <translation>打开 data.yaml、权重（.pt、.safetensors）或训练参数 YAML</translation>
    </message>
    <message>
        <source>Open &amp;folder...</source>
        <translation>打开文件夹(&amp;F)...</translation>
    </message>
    <message>
        <source>Open a dataset folder (with its data.yaml) or a run folder</source>
        <translation>打开数据集文件夹（含 data.yaml）或运行文件夹</translation>
    </message>
    <message>
        <source>&amp;Weights download address...</source>
        <translation>权重下载地址(&amp;W)...</translation>
    </message>
    <message>
        <source>Run %1: could not read: %2</source>
        <translation>运行 %1：无法读取：%2</translation>
    </message>
    <message>
        <source>Opened run %1; could not read: %2</source>
        <translation>已打开运行 %1；无法读取：%2</translation>
    </message>
    <message>
        <source>; exist_ok set to false so that Start writes a new run beside it, not over it</source>
        <translation>；exist_ok 已设为 false，使“开始”在其旁边写入新的运行，而不是覆盖它</translation>
    </message>
    <message>
        <source>Hyperparameters: the arguments of %1 (its args.yaml)%2</source>
        <translation>超参数：%1 的参数（其 args.yaml）%2</translation>
    </message>
    <message>
        <source>Hyperparameters: the arguments of %1 (its args.yaml)%2; keys this trainer does not use: %3</source>
        <translation>超参数：%1 的参数（其 args.yaml）%2；本训练器不使用的键：%3</translation>
    </message>
</context>
<context>
    <name>ywb::gui::PredictionsTab</name>
    <message>
        <source>An image, a video, a folder of them, a .txt list or a pattern such as images/*.jpg; no labels are needed</source>
        <translation>一张图像、一个视频、存放它们的文件夹、.txt 列表或 images/*.jpg 这样的通配模式；无需标注</translation>
    </message>
    <message>
        <source>Detections</source>
        <translation>检测数</translation>
    </message>
    <message>
        <source>Per-class detections</source>
        <translation>每类检测</translation>
    </message>
    <message>
        <source>all</source>
        <translation>全部</translation>
    </message>
    <message>
        <source>images, a folder, a video or a .txt list</source>
        <translation>图像、文件夹、视频或 .txt 列表</translation>
    </message>
    <message>
        <source>File...</source>
        <translation>文件...</translation>
    </message>
    <message>
        <source>Folder...</source>
        <translation>文件夹...</translation>
    </message>
    <message>
        <source>Predict</source>
        <translation>预测</translation>
    </message>
    <message>
        <source>Detect objects in the source with these weights (as ywb predict source=)</source>
        <translation>用这些权重检测来源中的目标（同 ywb predict source=）</translation>
    </message>
    <message>
        <source>Source</source>
        <translation>来源</translation>
    </message>
    <message>
        <source>Image, video or .txt list</source>
        <translation>图像、视频或 .txt 列表</translation>
    </message>
    <message>
        <source>Folder of images or videos</source>
        <translation>图像或视频所在的文件夹</translation>
    </message>
    <message>
        <source>Prediction failed: %1</source>
        <translation>预测失败：%1</translation>
    </message>
    <message>
        <source>Predicting on %1 ...</source>
        <translation>正在预测 %1 ...</translation>
    </message>
    <message>
        <source>%1  frame %2/%3</source>
        <translation>%1  第 %2/%3 帧</translation>
    </message>
    <message>
        <source>%1  frame %2</source>
        <translation>%1  第 %2 帧</translation>
    </message>
    <message>
        <source>Skipped %1</source>
        <translation>已跳过 %1</translation>
    </message>
    <message>
        <source>%1 images and %2 video frames predicted: %3 detections at conf %4 or above, %5 ms per image (model and post-processing)</source>
        <translation>已预测 %1 张图像和 %2 个视频帧：置信度 %4 及以上的检测 %3 个，每张图像 %5 ms（模型与后处理）</translation>
    </message>
    <message>
        <source>%1 skipped (named in the log)</source>
        <translation>已跳过 %1 个（日志中列出）</translation>
    </message>
    <message>
        <source>Validate</source>
        <translation>验证</translation>
    </message>
    <message>
        <source>Weights</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>Data</source>
        <translation>数据</translation>
    </message>
    <message>
        <source>Per-class AP</source>
        <translation>每类 AP</translation>
    </message>
    <message>
        <source>Confusion matrix</source>
        <translation>混淆矩阵</translation>
    </message>
    <message>
        <source>PR curve</source>
        <translation>PR 曲线</translation>
    </message>
    <message>
        <source>data.yaml</source>
        <translation>data.yaml</translation>
    </message>
    <message>
        <source>Browse...</source>
        <translation>浏览……</translation>
    </message>
    <message>
        <source>Validate weights to see predictions (metrics are COCO-exact).</source>
        <translation>验证权重以查看预测结果（指标与 COCO 官方计算一致）。</translation>
    </message>
    <message>
        <source>Predicted boxes are solid, ground truth dashed white.</source>
        <translation>预测框为实线，真值框为白色虚线。</translation>
    </message>
    <message>
        <source>Class</source>
        <translation>类别</translation>
    </message>
    <message>
        <source>Images</source>
        <translation>图像</translation>
    </message>
    <message>
        <source>Instances</source>
        <translation>实例</translation>
    </message>
    <message>
        <source>P</source>
        <translation>P</translation>
    </message>
    <message>
        <source>R</source>
        <translation>R</translation>
    </message>
    <message>
        <source>AP50</source>
        <translation>AP50</translation>
    </message>
    <message>
        <source>AP50-95</source>
        <translation>AP50-95</translation>
    </message>
    <message>
        <source>Precision-recall at IoU 0.50 (COCO)</source>
        <translation>IoU 0.50 下的精确率-召回率曲线（COCO）</translation>
    </message>
    <message>
        <source>recall</source>
        <translation>召回率</translation>
    </message>
    <message>
        <source>precision</source>
        <translation>精确率</translation>
    </message>
    <message>
        <source>conf %1</source>
        <translation>置信度 %1</translation>
    </message>
    <message>
        <source>NMS IoU %1</source>
        <translation>NMS IoU %1</translation>
    </message>
    <message>
        <source>Validating %1 ...</source>
        <translation>正在验证 %1 ……</translation>
    </message>
    <message>
        <source>Validation failed: %1</source>
        <translation>验证失败：%1</translation>
    </message>
    <message>
        <source>%1 images, %2 instances: P %3  R %4  mAP50 %5  mAP50-95 %6 (COCO-exact)   %7 ms inference + %8 ms NMS per image</source>
        <translation>%1 张图像，%2 个实例：P %3  R %4  mAP50 %5  mAP50-95 %6（COCO 精确）   每张图像推理 %7 毫秒 + NMS %8 毫秒</translation>
    </message>
    <message>
        <source>%1 images, %2 instances: P %3  R %4  mAP50 %5  mAP50-95 %6 (COCO-exact)   %7 ms inference + %8 ms top-k (no NMS) per image</source>
        <translation>%1 张图像，%2 个实例：P %3  R %4  mAP50 %5  mAP50-95 %6（COCO 精确）   每张图像推理 %7 毫秒 + top-k（无 NMS）%8 毫秒</translation>
    </message>
    <message>
        <source>Cannot read %1</source>
        <translation>无法读取 %1</translation>
    </message>
    <message>
        <source>background</source>
        <translation>背景</translation>
    </message>
    <message>
        <source>true class</source>
        <translation>真实类别</translation>
    </message>
    <message>
        <source>predicted class</source>
        <translation>预测类别</translation>
    </message>
    <message>
        <source>all classes</source>
        <translation>所有类别</translation>
    </message>
    <message>
        <source>end-to-end (NMS-free)</source>
        <translation>端到端（无 NMS）</translation>
    </message>
    <message>
        <source>End-to-end models (YOLO26): ticked, the one-to-one head&apos;s detections without NMS; unticked, the one-to-many head with NMS at the IoU beside (end2end=false). Other models always use NMS.</source>
        <translation>端到端模型（YOLO26）：勾选时使用一对一检测头的检测结果，不做 NMS；不勾选时使用一对多检测头，并按旁边的 IoU 做 NMS（end2end=false）。其他模型始终使用 NMS。</translation>
    </message>
    <message>
        <source>End-to-end model, NMS-free: its one-to-one head&apos;s best detections (top-k). Untick end-to-end for its one-to-many head with NMS.</source>
        <translation>端到端模型，无 NMS：一对一检测头的最佳检测结果（top-k）。取消勾选“端到端”可改用一对多检测头加 NMS。</translation>
    </message>
    <message>
        <source>End-to-end model through its one-to-many head with NMS at IoU %1 (end2end=false).</source>
        <translation>端到端模型，经一对多检测头并以 IoU %1 做 NMS（end2end=false）。</translation>
    </message>
    <message>
        <source>The dataset split to validate on (data.yaml&apos;s val, test or train)</source>
        <translation>用于验证的数据集划分（data.yaml 的 val、test 或 train）</translation>
    </message>
    <message>
        <source>Detections after NMS at IoU %1.</source>
        <translation>IoU %1 下经 NMS 后的检测结果。</translation>
    </message>
    <message>
        <source>test-time augmentation</source>
        <translation>测试时增强</translation>
    </message>
    <message>
        <source>Ultralytics&apos; augment=True: each image also runs mirrored at 0.83x and at 0.67x its size, and the three passes&apos; boxes go through NMS together (two to three times the inference time). An end-to-end model&apos;s NMS-free head runs one pass, as in Ultralytics.</source>
        <translation>即 Ultralytics 的 augment=True：每张图像另以 0.83 倍（左右镜像）和 0.67 倍尺寸各推理一次，三次推理的框一起经过 NMS（推理时间为两到三倍）。端到端模型的无 NMS 头只推理一次，与 Ultralytics 相同。</translation>
    </message>
    <message>
        <source>Test-time augmented: 3 passes per image (1x, 0.83x mirrored, 0.67x).</source>
        <translation>已使用测试时增强：每张图像推理 3 次（1 倍、0.83 倍镜像、0.67 倍）。</translation>
    </message>
    <message>
        <source>Test-time augmentation does not apply to the NMS-free head (as in Ultralytics); untick end-to-end to augment its one-to-many head.</source>
        <translation>测试时增强不适用于无 NMS 头（与 Ultralytics 相同）；取消勾选端到端即可对其一对多头进行增强。</translation>
    </message>
    <message>
        <source>track objects</source>
        <translation>跟踪目标</translation>
    </message>
    <message>
        <source>Follow each object through a video&apos;s frames with the tracker beside (as ywb track): boxes are labelled id:N, the object&apos;s number in that video. Detections down to confidence %1 feed the tracker.</source>
        <translation>用旁边选定的跟踪器在视频各帧中跟踪每个目标（同 ywb track）：框标注为 id:N，即该目标在此视频中的编号。置信度不低于 %1 的检测结果送入跟踪器。</translation>
    </message>
    <message>
        <source>BoT-SORT</source>
        <translation>BoT-SORT</translation>
    </message>
    <message>
        <source>ByteTrack</source>
        <translation>ByteTrack</translation>
    </message>
    <message>
        <source>Tracked with %1: %2 objects followed.</source>
        <translation>使用 %1 跟踪：共跟踪 %2 个目标。</translation>
    </message>
    <message>
        <source>one sequence</source>
        <translation>作为一个序列</translation>
    </message>
    <message>
        <source>Track all the source&apos;s files with one tracker, in file-name order (ywb track persist=true): for a folder of a video&apos;s frames saved as images. Unticked, each video and each image is tracked on its own.</source>
        <translation>按文件名顺序用同一个跟踪器跟踪来源中的所有文件（ywb track persist=true）：适用于把视频各帧保存为图像的文件夹。不勾选时，每个视频和每张图像各自单独跟踪。</translation>
    </message>
    <message>
        <source>Run by %1.</source>
        <translation>由 %1 运行。</translation>
    </message>
    <message>
        <source>weights/best.safetensors of a run (or exported weights, an ONNX graph or a TorchScript model)</source>
        <translation>某次运行的 weights/best.safetensors（或导出的权重、ONNX 图或 TorchScript 模型）</translation>
    </message>
    <message>
        <source>BoT-SORT + ReID</source>
        <translation>BoT-SORT + ReID</translation>
    </message>
    <message>
        <source>The tracker (ywb track tracker=): BoT-SORT, Ultralytics&apos; default, also moves each object&apos;s predicted box with the camera&apos;s motion between frames; with ReID (with_reid: True, model: auto) it also compares how overlapping objects look, by the detector&apos;s own features (the weights only, not an exported model); ByteTrack does neither</source>
        <translation>跟踪器（ywb track tracker=）：BoT-SORT 是 Ultralytics 的默认跟踪器，还会随帧间相机运动移动每个目标的预测框；启用 ReID（with_reid: True，model: auto）时，还会用检测器自身的特征比较相互重叠的目标的外观（仅限权重文件，不支持导出的模型）；ByteTrack 两者都不做</translation>
    </message>
</context>
<context>
    <name>ywb::gui::RunPictures</name>
    <message>
        <source>Picture:</source>
        <translation>图片：</translation>
    </message>
    <message>
        <source>No pictures in this run (trained with plots=false, or before plots were written)</source>
        <translation>此运行没有图片（以 plots=false 训练，或在写入图表之前的运行）</translation>
    </message>
    <message>
        <source>cannot read %1: %2</source>
        <translation>无法读取 %1：%2</translation>
    </message>
    <message>
        <source>%1 x %2</source>
        <translation>%1 x %2</translation>
    </message>
    <message>
        <source>loading %1...</source>
        <translation>正在加载 %1...</translation>
    </message>
</context>
<context>
    <name>ywb::gui::RunsTab</name>
    <message>
        <source>Refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <source>Runs folder:</source>
        <translation>运行目录：</translation>
    </message>
    <message>
        <source>Overlay:</source>
        <translation>叠加：</translation>
    </message>
    <message>
        <source>Browse...</source>
        <translation>浏览……</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Epochs</source>
        <translation>轮数</translation>
    </message>
    <message>
        <source>Best epoch</source>
        <translation>最佳轮次</translation>
    </message>
    <message>
        <source>mAP50-95</source>
        <translation>mAP50-95</translation>
    </message>
    <message>
        <source>mAP50</source>
        <translation>mAP50</translation>
    </message>
    <message>
        <source>P</source>
        <translation>P</translation>
    </message>
    <message>
        <source>R</source>
        <translation>R</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>COCO-exact mAP50-95 of the best epoch: the epoch whose weights are in weights/best (highest fitness = mAP50-95, as Ultralytics 8.3 selects)</source>
        <translation>最佳轮次的 COCO 精确 mAP50-95：其权重保存在 weights/best 中的轮次（适应度最高，适应度 = mAP50-95，与 Ultralytics 8.3 的选择规则相同）</translation>
    </message>
    <message>
        <source>Runs compared (COCO-exact mAP)</source>
        <translation>运行记录对比（COCO 精确 mAP）</translation>
    </message>
    <message>
        <source>epoch</source>
        <translation>轮次</translation>
    </message>
    <message>
        <source>Runs folder</source>
        <translation>运行记录文件夹</translation>
    </message>
    <message>
        <source>Curves</source>
        <translation>曲线</translation>
    </message>
    <message>
        <source>Pictures</source>
        <translation>图片</translation>
    </message>
</context>
<context>
    <name>ywb::gui::SystemPanel</name>
    <message>
        <source>Checking the environment...</source>
        <translation>正在检查运行环境……</translation>
    </message>
    <message>
        <source>Run environment doctor again</source>
        <translation>重新运行环境检查</translation>
    </message>
    <message>
        <source>seconds</source>
        <translation>秒</translation>
    </message>
    <message>
        <source>% of capacity</source>
        <translation>占用率 %</translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>RAM</source>
        <translation>内存</translation>
    </message>
    <message>
        <source>GPU%1 load</source>
        <translation>GPU%1 负载</translation>
    </message>
    <message>
        <source>GPU%1 memory</source>
        <translation>GPU%1 显存</translation>
    </message>
    <message>
        <source>Environment OK</source>
        <translation>环境正常</translation>
    </message>
    <message>
        <source>Environment has problems</source>
        <translation>环境存在问题</translation>
    </message>
    <message>
        <source>LibTorch %1 (%2, %3 threads, BLAS %4)&lt;br&gt;</source>
        <translation>LibTorch %1（%2，%3 个线程，BLAS %4）&lt;br&gt;</translation>
    </message>
    <message>
        <source>CPU only</source>
        <translation>仅 CPU</translation>
    </message>
    <message>
        <source>OpenCV %1, Qt %2&lt;br&gt;</source>
        <translation>OpenCV %1，Qt %2&lt;br&gt;</translation>
    </message>
    <message>
        <source>CPU: %1 (%2 cores), RAM %3 of %4 free&lt;br&gt;</source>
        <translation>CPU：%1（%2 核），内存可用 %3 / 共 %4&lt;br&gt;</translation>
    </message>
    <message>
        <source>GPUs: none. %1&lt;br&gt;</source>
        <translation>GPU：无。%1&lt;br&gt;</translation>
    </message>
    <message>
        <source>GPU %1: %2, sm_%3%4, %5 total, kernels: %6&lt;br&gt;</source>
        <translation>GPU %1：%2，sm_%3%4，共 %5，内核：%6&lt;br&gt;</translation>
    </message>
    <message>
        <source>Warning: </source>
        <translation>警告：</translation>
    </message>
    <message>
        <source>Problem: </source>
        <translation>问题：</translation>
    </message>
    <message>
        <source>Environment doctor: OK</source>
        <translation>环境检查：正常</translation>
    </message>
    <message>
        <source>Environment doctor found %1 problem(s)</source>
        <translation>环境检查发现 %1 个问题</translation>
    </message>
    <message>
        <source> (rank %1)</source>
        <translation>（rank %1）</translation>
    </message>
</context>
<context>
    <name>ywb::gui::TrainingController</name>
    <message>
        <source>unknown error in the trainer</source>
        <translation>训练器发生未知错误</translation>
    </message>
    <message>
        <source>a multi-rank run needs the ywb program (one process per rank), and it was not found next to this program or on PATH; set YWB_CLI to its path</source>
        <translation>多进程训练需要 ywb 程序（每个 rank 一个进程），但在本程序所在目录和 PATH 中均未找到；请将 YWB_CLI 设为其路径</translation>
    </message>
    <message>
        <source>Multi-rank run: %1 processes through the ywb launcher</source>
        <translation>多进程训练：通过 ywb 启动器运行 %1 个进程</translation>
    </message>
    <message>
        <source>tune: iteration %1/%2: fitness %3; best %4 (iteration %5)</source>
        <translation>调参：第 %1/%2 轮：适应度 %3；最佳 %4（第 %5 轮）</translation>
    </message>
    <message>
        <source>tune: iteration %1/%2 failed (fitness 0): %3</source>
        <translation>调参：第 %1/%2 轮失败（适应度记为 0）：%3</translation>
    </message>
    <message>
        <source>a tune trains one process per run: choose one device (0 or cpu) and world=1</source>
        <translation>调参每次训练只用一个进程：请选择一个设备（0 或 cpu）并设 world=1</translation>
    </message>
</context>
<context>
    <name>ywb::gui::TrainingTab</name>
    <message>
        <source>Resume</source>
        <translation>继续训练</translation>
    </message>
    <message>
        <source>Train until epoch (the run has %1; more extends it, also when it has finished):</source>
        <translation>训练到第几轮（该运行共 %1 轮；更多轮次将延长训练，已完成的运行也可以）：</translation>
    </message>
    <message>
        <source>Start</source>
        <translation>开始</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Resume...</source>
        <translation>继续训练...</translation>
    </message>
    <message>
        <source>Export charts...</source>
        <translation>导出图表...</translation>
    </message>
    <message>
        <source>Idle</source>
        <translation>空闲</translation>
    </message>
    <message>
        <source>Continue</source>
        <translation>继续</translation>
    </message>
    <message>
        <source>Train loss</source>
        <translation>训练损失</translation>
    </message>
    <message>
        <source>Validation loss</source>
        <translation>验证损失</translation>
    </message>
    <message>
        <source>Precision / recall</source>
        <translation>精确率 / 召回率</translation>
    </message>
    <message>
        <source>mAP (COCO-exact)</source>
        <translation>mAP（COCO 精确）</translation>
    </message>
    <message>
        <source>Learning rate</source>
        <translation>学习率</translation>
    </message>
    <message>
        <source>Throughput</source>
        <translation>吞吐量</translation>
    </message>
    <message>
        <source>System load</source>
        <translation>系统负载</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <source>epoch</source>
        <translation>轮次</translation>
    </message>
    <message>
        <source>warmup end</source>
        <translation>预热结束</translation>
    </message>
    <message>
        <source>close mosaic</source>
        <translation>关闭 Mosaic</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>Continue a stopped run from its weights/last.safetensors</source>
        <translation>从 weights/last.safetensors 继续已停止的训练</translation>
    </message>
    <message>
        <source>images/s: -   data wait: -</source>
        <translation>图像/秒：-   数据等待：-</translation>
    </message>
    <message>
        <source>Training failed: %1</source>
        <translation>训练失败：%1</translation>
    </message>
    <message>
        <source>images/s</source>
        <translation>图像/秒</translation>
    </message>
    <message>
        <source>GiB</source>
        <translation>GiB</translation>
    </message>
    <message>
        <source>P</source>
        <translation>P</translation>
    </message>
    <message>
        <source>R</source>
        <translation>R</translation>
    </message>
    <message>
        <source>mAP50</source>
        <translation>mAP50</translation>
    </message>
    <message>
        <source>mAP50-95</source>
        <translation>mAP50-95</translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>RAM</source>
        <translation>内存</translation>
    </message>
    <message>
        <source>GPU load</source>
        <translation>GPU 负载</translation>
    </message>
    <message>
        <source>GPU memory</source>
        <translation>GPU 显存</translation>
    </message>
    <message>
        <source>data wait</source>
        <translation>数据等待</translation>
    </message>
    <message>
        <source>process RSS</source>
        <translation>进程常驻内存</translation>
    </message>
    <message>
        <source>GPU used (NVML)</source>
        <translation>GPU 已用（NVML）</translation>
    </message>
    <message>
        <source>tensor pool (reserved)</source>
        <translation>张量内存池（已保留）</translation>
    </message>
    <message>
        <source>tensors, step peak</source>
        <translation>张量，单步峰值</translation>
    </message>
    <message>
        <source>Resuming %1</source>
        <translation>正在继续 %1</translation>
    </message>
    <message>
        <source>Starting training on %1</source>
        <translation>开始在 %1 上训练</translation>
    </message>
    <message>
        <source>Stopping: finishing the step and saving last...</source>
        <translation>正在停止：完成当前步并保存 last……</translation>
    </message>
    <message>
        <source>Paused (after the current step)</source>
        <translation>已暂停（当前步完成后）</translation>
    </message>
    <message>
        <source>epoch %1/%2  batch %3/%4  %p%</source>
        <translation>轮次 %1/%2  批次 %3/%4  %p%</translation>
    </message>
    <message>
        <source>elapsed %1  ETA %2</source>
        <translation>已用 %1  剩余 %2</translation>
    </message>
    <message>
        <source>images/s: %1   data wait: %2%   boxes in batch: %3   imgsz %4</source>
        <translation>图像/秒：%1   数据等待：%2%   批内框数：%3   imgsz %4</translation>
    </message>
    <message>
        <source>epoch %1/%2: P %3 R %4 mAP50 %5 mAP50-95 %6 (COCO-exact)%7</source>
        <translation>轮次 %1/%2：P %3 R %4 mAP50 %5 mAP50-95 %6（COCO 精确）%7</translation>
    </message>
    <message>
        <source>  new best</source>
        <translation>  新的最佳</translation>
    </message>
    <message>
        <source>best: epoch %1, mAP50-95 %2 (COCO-exact)</source>
        <translation>最佳：第 %1 轮，mAP50-95 %2（COCO 精确）</translation>
    </message>
    <message>
        <source>Run %1: %2 epoch(s) in %3, %4 images/s, AMP %5%6</source>
        <translation>运行 %1：%2 轮，用时 %3，%4 图像/秒，AMP %5%6</translation>
    </message>
    <message>
        <source>Run folder to resume</source>
        <translation>要继续的运行文件夹</translation>
    </message>
    <message>
        <source>Export charts</source>
        <translation>导出图表</translation>
    </message>
    <message>
        <source>PNG image (*.png);;PDF document (*.pdf)</source>
        <translation>PNG 图像 (*.png);;PDF 文档 (*.pdf)</translation>
    </message>
    <message>
        <source>Charts saved to %1</source>
        <translation>图表已保存到 %1</translation>
    </message>
    <message>
        <source>Could not save %1</source>
        <translation>无法保存 %1</translation>
    </message>
    <message>
        <source>GPU%1 load</source>
        <translation>GPU%1 负载</translation>
    </message>
    <message>
        <source>GPU%1 memory</source>
        <translation>GPU%1 显存</translation>
    </message>
    <message>
        <source>GPU%1 used (NVML)</source>
        <translation>GPU%1 已用（NVML）</translation>
    </message>
    <message>
        <source>loss (per batch)</source>
        <translation>损失（每批）</translation>
    </message>
    <message>
        <source>loss (val set)</source>
        <translation>损失（验证集）</translation>
    </message>
    <message>
        <source>fraction (0-1)</source>
        <translation>比例（0-1）</translation>
    </message>
    <message>
        <source>mAP (0-1)</source>
        <translation>mAP（0-1）</translation>
    </message>
    <message>
        <source>learning rate (per step)</source>
        <translation>学习率（每步）</translation>
    </message>
    <message>
        <source>time (s)</source>
        <translation>时间（秒）</translation>
    </message>
    <message>
        <source>% of capacity</source>
        <translation>占用率 %</translation>
    </message>
    <message>
        <source>all groups</source>
        <translation>所有参数组</translation>
    </message>
    <message>
        <source>groups differ in epochs %1-%2; one line where they coincide</source>
        <translation>参数组在第 %1-%2 轮不同；相同时显示为一条线</translation>
    </message>
    <message>
        <source>Not started: %1</source>
        <translation>未开始：%1</translation>
    </message>
    <message>
        <source>Resume this run...</source>
        <translation>继续此次训练……</translation>
    </message>
    <message>
        <source>best</source>
        <translation>最佳</translation>
    </message>
    <message>
        <source>epoch %1/%2  %p%</source>
        <translation>轮次 %1/%2  %p%</translation>
    </message>
    <message>
        <source>  best</source>
        <translation>  最佳</translation>
    </message>
    <message>
        <source>Could not read: %1</source>
        <translation>无法读取：%1</translation>
    </message>
    <message>
        <source>Continue %1 from its weights/last.safetensors with its own arguments (more epochs extend a finished run)</source>
        <translation>使用其自身参数从 weights/last.safetensors 继续 %1（更多轮次可延长已完成的训练）</translation>
    </message>
    <message>
        <source>%1 has no weights/last.safetensors to resume from</source>
        <translation>%1 没有可用于继续训练的 weights/last.safetensors</translation>
    </message>
    <message>
        <source>Overlaid run %1 (%2 epochs)</source>
        <translation>已叠加运行 %1（%2 轮）</translation>
    </message>
    <message>
        <source>no epochs in results.csv</source>
        <translation>results.csv 中没有轮次</translation>
    </message>
    <message>
        <source>finished at epoch %1</source>
        <translation>在第 %1 轮完成</translation>
    </message>
    <message>
        <source>stopped at epoch %1 of %2</source>
        <translation>在第 %1 轮（共 %2 轮）停止</translation>
    </message>
    <message>
        <source>stopped or finished at epoch %1 (no args.yaml)</source>
        <translation>在第 %1 轮停止或完成（没有 args.yaml）</translation>
    </message>
    <message>
        <source>run %1</source>
        <translation>运行 %1</translation>
    </message>
    <message>
        <source>run %1, took %2 s</source>
        <translation>运行 %1，用时 %2 秒</translation>
    </message>
    <message>
        <source>not in results.csv</source>
        <translation>results.csv 中没有</translation>
    </message>
    <message>
        <source>o2m weight</source>
        <translation>o2m 权重</translation>
    </message>
    <message>
        <source>dfl / L1</source>
        <translation>dfl / L1</translation>
    </message>
    <message>
        <source>End-to-end model: the one-to-one branch&apos;s losses, as the trainer logs them; the o2m weight is the one-to-many branch&apos;s share of the loss (the one-to-one branch gets 1 - o2m)</source>
        <translation>端到端模型：训练器记录的一对一分支的损失；o2m 权重是一对多分支在损失中所占的比重（一对一分支为 1 - o2m）</translation>
    </message>
    <message>
        <source>o2m weight %1 → %2</source>
        <translation>o2m 权重 %1 → %2</translation>
    </message>
    <message>
        <source>Run %1: its log (%2):</source>
        <translation>运行 %1：其日志（%2）：</translation>
    </message>
    <message>
        <source>Run %1: its log could not be read (%2)</source>
        <translation>运行 %1：无法读取其日志（%2）</translation>
    </message>
    <message>
        <source>Run %1: no log in this run folder (%2); its epochs from results.csv:</source>
        <translation>运行 %1：此运行文件夹中没有日志（%2）；以下是 results.csv 中的各轮：</translation>
    </message>
    <message>
        <source>  (o2m weight %1)</source>
        <translation>  (一对多权重 %1)</translation>
    </message>
    <message>
        <source>Tune...</source>
        <translation>调参...</translation>
    </message>
    <message>
        <source>Evolve the hyperparameters: many short runs, each mutated from the best so far (ywb tune)</source>
        <translation>进化超参数：多次短训练，每次由目前最好的结果变异而来（ywb tune）</translation>
    </message>
    <message>
        <source>Tune %1/%2: %3</source>
        <translation>调参 %1/%2：%3</translation>
    </message>
    <message>
        <source>Tune</source>
        <translation>调参</translation>
    </message>
    <message>
        <source>Training runs, each with the search space&apos;s hyperparameters mutated from the best runs so far (the first trains them as set):</source>
        <translation>训练次数，每次训练的搜索空间超参数由目前最好的几次变异而来（第一次按当前设置训练）：</translation>
    </message>
    <message>
        <source>Tuning on %1: %2 runs in %3/tune (Runs lists them as tune/iterN)</source>
        <translation>在 %1 上调参：%2 次训练，保存在 %3/tune（“运行”页以 tune/iterN 列出）</translation>
    </message>
    <message>
        <source>Tune run %1 of %2: %3</source>
        <translation>调参第 %1 次（共 %2 次）：%3</translation>
    </message>
    <message>
        <source>Tune %1: best run %2 (best_hyperparameters.yaml: Hyperparameters &gt; Load YAML)</source>
        <translation>调参 %1：最佳训练 %2（best_hyperparameters.yaml：超参数 &gt; 加载 YAML）</translation>
    </message>
    <message>
        <source>Resume tune</source>
        <translation>继续调参</translation>
    </message>
    <message>
        <source>Training runs in all (the tune has %1; more extends it):</source>
        <translation>训练总次数（该调参有 %1 次；更多则延长）：</translation>
    </message>
    <message>
        <source>Continuing the tune in %1</source>
        <translation>继续 %1 中的调参</translation>
    </message>
</context>
<context>
    <name>ywb::gui::WeightsDownloadDialog</name>
    <message>
        <source>Downloading weights</source>
        <translation>正在下载权重</translation>
    </message>
    <message>
        <source>Downloading %1 (%2%3)
from %4/%1
(Ultralytics&apos; weights, AGPL-3.0)</source>
        <translation>正在下载 %1（%2%3）
来源 %4/%1
（Ultralytics 的权重，AGPL-3.0）</translation>
    </message>
    <message>
        <source>about </source>
        <translation>约 </translation>
    </message>
    <message>
        <source>Cancelling ...</source>
        <translation>正在取消……</translation>
    </message>
    <message>
        <source>Weights download address</source>
        <translation>权重下载地址</translation>
    </message>
    <message>
        <source>Official weights are fetched from &lt;address&gt;/&lt;file name&gt;.
Empty: %1
(%2 overrides this setting.)</source>
        <translation>官方权重从 &lt;地址&gt;/&lt;文件名&gt; 下载。
留空：%1
（%2 优先于此设置。）</translation>
    </message>
</context>
</TS>
