// The documentation stays in step with the code: README.md and docs/**/*.md link only to files and
// headings that exist; every `momentum-lab-cli` line in a code block names a real command, flags that
// command's --help lists, and optimizers and presets that exist; and the user guide (docs/guide/)
// names every optimizer of the catalog, every CLI command and option, and every view of the desktop app (the
// main window's docks and the tabs of the inspector, the diagnostics dock and the study window, read
// from ui/); the diagnostics.csv table lists the columns the writer writes, in order.
// MOMENTUM_LAB_SOURCE_DIR is the source tree; MOMENTUM_LAB_CLI the built CLI.
#include "diagnostics/DiagnosticsColumns.h"
#include "optim/OptimizerCatalog.h"
#include "experiment/Presets.h"

#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QTest>

#include <map>

namespace {

const QString kSourceDir = QStringLiteral(MOMENTUM_LAB_SOURCE_DIR);
const QString kCli = QStringLiteral(MOMENTUM_LAB_CLI);

QString readText(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return {};
    return QString::fromUtf8(file.readAll());
}

// README.md and every Markdown file under docs/, as paths relative to the source tree.
QStringList markdownFiles() {
    QStringList files{"README.md"};
    QDirIterator it(kSourceDir + "/docs", {"*.md"}, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) files << QDir(kSourceDir).relativeFilePath(it.next());
    files.sort();
    return files;
}

// A Markdown text split into prose (fenced code blocks blanked) and its fenced code blocks.
struct Markdown {
    QString prose;
    QStringList codeBlocks;
};

Markdown splitFences(const QString& text) {
    Markdown md;
    QString block;
    bool inFence = false;
    for (const QString& line : text.split('\n')) {
        if (line.trimmed().startsWith("```")) {
            if (inFence) md.codeBlocks << block;
            block.clear();
            inFence = !inFence;
            md.prose += '\n';
            continue;
        }
        if (inFence) block += line + '\n';
        else md.prose += line + '\n';
    }
    return md;
}

// GitHub's anchor of a heading: lower case, links reduced to their text, everything but letters,
// digits, spaces, '-' and '_' dropped, spaces as '-'; a repeated anchor gets -1, -2, ...
QSet<QString> headingAnchors(const QString& text) {
    static const QRegularExpression heading("^#{1,6}\\s+(.*?)\\s*#*\\s*$");
    static const QRegularExpression link("\\[([^\\]]*)\\]\\([^)]*\\)");
    QSet<QString> anchors;
    std::map<QString, int> seen;
    for (const QString& line : splitFences(text).prose.split('\n')) {
        const QRegularExpressionMatch m = heading.match(line);
        if (!m.hasMatch()) continue;
        QString title = m.captured(1);
        title.replace(link, "\\1");
        QString anchor;
        for (const QChar c : title.toLower())
            if (c.isLetterOrNumber() || c == '-' || c == '_') anchor += c;
            else if (c == ' ') anchor += '-';
        const int count = seen[anchor]++;
        anchors.insert(count == 0 ? anchor : anchor + "-" + QString::number(count));
    }
    return anchors;
}

// Shell words of one command line (quotes removed); a bare |, &&, ;, > or < ends the command.
QStringList shellWords(const QString& line) {
    QStringList words;
    QString word;
    bool any = false;
    QChar quote;
    for (const QChar c : line) {
        if (!quote.isNull()) {
            if (c == quote) quote = QChar();
            else word += c;
        } else if (c == '"' || c == '\'') {
            quote = c;
            any = true;
        } else if (c == '#' && word.isEmpty() && !any) {
            break;  // a comment
        } else if (c.isSpace()) {
            if (any || !word.isEmpty()) words << word;
            word.clear();
            any = false;
        } else {
            word += c;
        }
    }
    if (any || !word.isEmpty()) words << word;
    return words;
}

struct CliLine {
    QString file;
    QStringList words;  // from the command's name on
};

// Every `momentum-lab-cli COMMAND ...` in the code blocks of the docs, continuation lines joined.
QList<CliLine> cliLines() {
    QList<CliLine> lines;
    for (const QString& file : markdownFiles()) {
        for (QString block : splitFences(readText(kSourceDir + "/" + file)).codeBlocks) {
            block.replace(QRegularExpression("\\\\\\n\\s*"), " ");
            for (const QString& line : block.split('\n')) {
                const QStringList words = shellWords(line);
                for (qsizetype i = 0; i < words.size(); ++i) {
                    if (!(words[i] == "momentum-lab-cli" || words[i].endsWith("/momentum-lab-cli"))) continue;
                    if (i > 0 &&
                        !QStringList{"|", "&&", ";", "||", "$(", "time", "nice", "-v"}.contains(words[i - 1]) &&
                        !words[i - 1].startsWith("MOMENTUM_LAB_") && !words[i - 1].startsWith("QT_") &&
                        words[i - 1] != "19")
                        continue;  // a mention inside another command's arguments
                    QStringList command;
                    for (qsizetype j = i + 1; j < words.size(); ++j) {
                        if (QStringList{"|", "&&", ";", "||", ">", "<", "2>", ">>"}.contains(words[j])) break;
                        command << words[j];
                    }
                    lines << CliLine{file, command};
                }
            }
        }
    }
    return lines;
}

struct CliRun {
    int status = -1;
    QString output;
};

CliRun runCli(const QStringList& arguments) {
    QProcess process;
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start(kCli, arguments);
    if (!process.waitForFinished(30000)) return {};
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
            QString::fromUtf8(process.readAllStandardOutput())};
}

// The commands `momentum-lab-cli help` lists ("  NAME  description" under "Commands:").
QStringList cliCommands() {
    const CliRun help = runCli({"help"});
    QStringList commands;
    bool inList = false;
    static const QRegularExpression entry("^  ([a-z][a-z0-9-]*)\\s");
    for (const QString& line : help.output.split('\n')) {
        if (line.startsWith("Commands:")) {
            inList = true;
            continue;
        }
        if (!inList) continue;
        const QRegularExpressionMatch m = entry.match(line);
        if (!m.hasMatch()) break;
        commands << m.captured(1);
    }
    return commands;
}

// The flags `momentum-lab-cli COMMAND --help` names.
QSet<QString> cliFlags(const QString& command) {
    QSet<QString> flags{"help", "h"};
    static const QRegularExpression flag("--([a-z][a-z0-9-]*)");
    for (const QRegularExpressionMatch& m : flag.globalMatch(runCli({command, "--help"}).output))
        flags.insert(m.captured(1));
    return flags;
}

// The options `momentum-lab-cli COMMAND --help` lists (its "  --name <ARG>  text" lines).
QStringList cliOptions(const QString& command) {
    QStringList options;
    static const QRegularExpression option("^ +(?:-[a-zA-Z], )?--([a-z0-9-]+)", QRegularExpression::MultilineOption);
    for (const QRegularExpressionMatch& m : option.globalMatch(runCli({command, "--help"}).output))
        if (m.captured(1) != "help" && m.captured(1) != "help-all") options << m.captured(1);
    return options;
}

// Every file of the user guide, one text.
QString guideText() {
    QString text;
    QDirIterator it(kSourceDir + "/docs/guide", {"*.md"}, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) text += readText(it.next()) + '\n';
    return text;
}

// The view titles of the desktop app: the main window's docks, the registered views
// (ui/views/ViewRegistry.h: `return {"name", tr("Title"), ...`) and every tab in ui/.
QStringList viewTitles() {
    QStringList titles;
    static const QRegularExpression dock(
        "(?:addDock\\(|ViewRegistration \\w+\\(\\) \\{\\s*return \\{\"[a-z-]+\",\\s*)tr\\(\"([^\"]+)\"\\)");
    static const QRegularExpression tab("addTab\\([^;]*?tr\\(\"([^\"]+)\"\\)\\)");
    QDirIterator it(kSourceDir + "/ui", {"*.cpp"}, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString source = readText(it.next());
        for (const QRegularExpressionMatch& m : dock.globalMatch(source)) titles << m.captured(1);
        for (const QRegularExpressionMatch& m : tab.globalMatch(source)) titles << m.captured(1);
    }
    titles.removeDuplicates();
    return titles;
}

}  // namespace

class TestDocs : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Every relative link and image of README.md and docs/**/*.md names a file that exists, and a
    // #fragment a heading of the Markdown file it points at.
    void linksAndImagesResolve() {
        static const QRegularExpression link(
            "!?\\[(?:[^\\[\\]]|\\[[^\\]]*\\])*\\]\\(<?([^)\\s>]+)>?(?:\\s+\"[^\"]*\")?\\)");
        static const QRegularExpression codeSpan("`[^`\\n]*`");
        QStringList broken;
        int checked = 0;
        for (const QString& file : markdownFiles()) {
            const QString path = kSourceDir + "/" + file;
            QString prose = splitFences(readText(path)).prose;
            prose.replace(codeSpan, "``");
            for (const QRegularExpressionMatch& m : link.globalMatch(prose)) {
                const QString target = m.captured(1);
                if (target.contains(QRegularExpression("^[a-z][a-z0-9+.-]*:"))) continue;  // https:, mailto:
                ++checked;
                const QString filePart = target.section('#', 0, 0);
                const QString fragment = target.contains('#') ? target.section('#', 1) : QString();
                const QString resolved =
                    filePart.isEmpty() ? path : QFileInfo(QFileInfo(path).dir(), filePart).absoluteFilePath();
                if (!QFileInfo::exists(resolved)) {
                    broken << file + ": " + target + " (no such file)";
                    continue;
                }
                if (!fragment.isEmpty() && resolved.endsWith(".md") &&
                    !headingAnchors(readText(resolved)).contains(fragment))
                    broken << file + ": " + target + " (no such heading)";
            }
        }
        QVERIFY2(checked > 50, qPrintable(QString("only %1 links found: is the source tree right?").arg(checked)));
        QVERIFY2(broken.isEmpty(), qPrintable("broken links:\n  " + broken.join("\n  ")));
    }

    // Every momentum-lab-cli line in a code block names a command of `momentum-lab-cli help`, only
    // flags its `--help` lists, and only optimizers and presets that exist.
    void cliLinesNameRealCommandsAndFlags() {
        QVERIFY2(QFileInfo(kCli).isExecutable(), qPrintable(kCli + " is not built"));
        const QStringList commands = cliCommands();
        QVERIFY2(commands.contains("train"), qPrintable("momentum-lab-cli help lists no commands"));
        std::map<QString, QSet<QString>> flags;
        for (const QString& command : commands) flags[command] = cliFlags(command);

        QSet<QString> optimizers;
        for (const ml::OptimizerInfo& info : ml::optimizerCatalog())
            optimizers.insert(QString::fromStdString(info.name));
        QSet<QString> presets;
        for (const ml::Preset& preset : ml::presets()) presets.insert(QString::fromStdString(preset.id));

        QStringList wrong;
        const QList<CliLine> lines = cliLines();
        for (const CliLine& line : lines) {
            const QString shown = line.file + ": momentum-lab-cli " + line.words.join(' ');
            const QString command = line.words.value(0);
            if (command == "help" || command == "--help" || command == "-h" || command == "--version") continue;
            if (!commands.contains(command)) {
                wrong << shown + " (no command '" + command + "')";
                continue;
            }
            for (qsizetype i = 1; i < line.words.size(); ++i) {
                QString word = line.words[i];
                while (word.startsWith('[')) word.remove(0, 1);
                while (word.endsWith(']')) word.chop(1);
                if (!word.startsWith("--")) continue;
                const QString name = word.mid(2).section('=', 0, 0);
                if (!flags[command].contains(name)) wrong << shown + " (no flag --" + name + ")";
                const QString value = word.contains('=') ? word.section('=', 1) : line.words.value(i + 1);
                if (name == "optimizer" && value == value.toLower() && !value.startsWith('-')) {
                    for (const QString& run : value.split(',', Qt::SkipEmptyParts))
                        if (!optimizers.contains(run.section(':', 0, 0)))
                            wrong << shown + " (no optimizer '" + run.section(':', 0, 0) + "')";
                }
                if (name == "preset" && value == value.toLower() && !presets.contains(value))
                    wrong << shown + " (no preset '" + value + "')";
            }
        }
        QVERIFY2(lines.size() > 30, qPrintable(QString("only %1 CLI lines found in the docs").arg(lines.size())));
        QVERIFY2(wrong.isEmpty(), qPrintable("CLI lines that do not parse:\n  " + wrong.join("\n  ")));
    }

    // The user guide documents every option of every CLI command (as `--name`).
    void guideDocumentsEveryCliOption() {
        const QString guide = guideText();
        const QStringList commands = cliCommands();
        QVERIFY2(!commands.isEmpty(), qPrintable("momentum-lab-cli help lists no commands (" + kCli + ")"));
        QStringList missing;
        int options = 0;
        for (const QString& command : commands)
            for (const QString& option : cliOptions(command)) {
                ++options;
                if (!guide.contains(QRegularExpression("`--" + QRegularExpression::escape(option) + "(?![a-z0-9-])")))
                    missing << command + " --" + option;
            }
        QVERIFY2(options > 40, qPrintable(QString("only %1 options found in the commands' --help").arg(options)));
        QVERIFY2(missing.isEmpty(), qPrintable("options not in docs/guide/: " + missing.join(", ")));
    }

    // The user guide names every optimizer, every CLI command and every view.
    void guideCoversEveryOptimizerCommandAndView() {
        const QString guide = guideText();
        QVERIFY2(!guide.isEmpty(), "docs/guide/ is empty");
        QStringList missing;
        for (const ml::OptimizerInfo& info : ml::optimizerCatalog())
            if (!guide.contains("`" + QString::fromStdString(info.name) + "`"))
                missing << "optimizer `" + QString::fromStdString(info.name) + "`";
        const QStringList commands = cliCommands();
        QVERIFY2(!commands.isEmpty(), qPrintable("momentum-lab-cli help lists no commands (" + kCli + ")"));
        for (const QString& command : commands)
            if (!guide.contains("`" + command + "`")) missing << "command `" + command + "`";
        const QStringList views = viewTitles();
        QVERIFY2(views.size() >= 10, qPrintable("found only these views in ui/: " + views.join(", ")));
        for (const QString& view : views)
            if (!guide.contains(view)) missing << "view \"" + view + "\"";
        QVERIFY2(missing.isEmpty(), qPrintable("not in docs/guide/: " + missing.join(", ")));
    }

    // docs/guide/diagnostics.md's table of diagnostics.csv is the writer's column list, in order.
    void diagnosticsColumnsAreTheWritersColumns() {
        const QString guide = readText(kSourceDir + "/docs/guide/diagnostics.md");
        const qsizetype section = guide.indexOf("## diagnostics.csv");
        QVERIFY2(section >= 0, "docs/guide/diagnostics.md: no \"## diagnostics.csv\" section");
        const QString table = guide.mid(section, guide.indexOf("\n## ", section + 1) - section);
        QStringList documented;
        const QRegularExpression row("^\\| `([a-z_]+)` \\|", QRegularExpression::MultilineOption);
        for (auto match = row.globalMatch(table); match.hasNext();) documented << match.next().captured(1);
        QStringList written;
        for (const std::string_view column : ml::kDiagnosticsColumns)
            written << QString::fromUtf8(column.data(), qsizetype(column.size()));
        QCOMPARE(documented, written);
    }
};

QTEST_GUILESS_MAIN(TestDocs)
#include "test_docs.moc"
