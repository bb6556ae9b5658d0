// libFuzzer target: the run-folder reader (readRunFolder, behind `export` and the app's File > Open
// run folder). One input is a whole folder, as a sequence of files:
//     @@ config.json\n<contents>\n@@ momentum/metrics.csv\n<contents>...
// (a line "@@ PATH" starts each file; PATH is relative, made of letters, digits and - _ . /, with no
// ".." part; anything before the first marker is ignored). The folder is written afresh for each
// input. A refusal (InputError) is a correct answer; problems of single runs are recorded, not thrown.
#include "FuzzScratch.h"
#include "InputError.h"
#include "runfolder/RunFolderReader.h"

#include <QRegularExpression>

namespace {

bool isSafeRelativePath(const QString& path) {
    static const QRegularExpression allowed("^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*$");
    return allowed.match(path).hasMatch() && !path.split('/').contains("..") && path.size() < 200;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const ml::fuzz::FuzzScratch& scratch = ml::fuzz::FuzzScratch::instance();
    const QString folder = scratch.freshFolder("run");
    const QByteArray input = ml::fuzz::bytesOf(data, size);
    const QByteArray marker = "@@ ";
    qsizetype at = input.startsWith(marker) ? 0 : input.indexOf("\n" + marker);
    if (at > 0) ++at;  // past the newline
    int files = 0;
    while (at >= 0 && files < 16) {
        const qsizetype nameEnd = input.indexOf('\n', at);
        if (nameEnd < 0) break;
        const QString name = QString::fromUtf8(input.mid(at + marker.size(), nameEnd - at - marker.size()));
        const qsizetype next = input.indexOf("\n" + marker, nameEnd);
        const QByteArray contents = input.mid(nameEnd + 1, next < 0 ? -1 : next - nameEnd);  // keeps its last newline
        if (isSafeRelativePath(name) && !scratch.write("run/" + name, contents).isEmpty()) ++files;
        at = next < 0 ? -1 : next + 1;
    }
    try {
        const ml::RunFolder run = ml::readRunFolder(folder);
        (void)run.problems();
    } catch (const ml::InputError&) {}
    return 0;
}
