"""The words jieba's bundled dictionary lacks or splits, added in memory by the segmenter
(service/adapters/text/segmenter.py) and read by the pinyin table (pinyinindex.py): one module both
import, so neither imports the other."""

# Words of narration scripts about ML that the bundled dictionary lacks or splits (算/力):
# added in memory only, with the tag the break costs need.
EXTRA_WORDS = {
    "算力": "n",
    "缓存": "n",
    "显卡": "n",
    "显存": "n",
    "评分员": "n",
    "子集": "n",
    "上下文": "n",
    "工作空间": "n",
    "三件套": "n",
    "百分点": "q",
    "比特": "q",
    "前向": "n",
    "前向传播": "n",
    "反向传播": "n",
    "预训练": "vn",
    "后训练": "vn",
    "损失函数": "n",
    "过拟合": "vn",
    "欠拟合": "vn",
    "端到端": "b",
    "参数量": "n",
    "数据集": "n",
    "训练集": "n",
    "测试集": "n",
    "验证集": "n",
    "智能体": "n",
    "多模态": "b",
    "大模型": "n",
    "小模型": "n",
    "长文本": "n",
    "去重": "vn",
}
EXTRA_FREQ = 50000  # what jieba.add_word(word, freq=50000, tag=tag) was given
