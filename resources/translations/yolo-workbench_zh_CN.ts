<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
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
</context>
<context>
    <name>ywb::gui::TrainingTab</name>
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
        <source>loss</source>
        <translation>损失</translation>
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
</context>
<context>
    <name>ywb::gui::PredictionsTab</name>
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
</context>
</TS>
