// The benchmark's peer: the same work done with OpenCV (Debian's
// libopencv-dev), behind a C interface so dvpp_bench.c stays C. One thread
// (cv::setNumThreads(1)), as the DVPP side runs with OPENACL_THREADS=1.
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <vector>

extern "C" {

void peer_init(void)
{
    cv::setNumThreads(1);
}

// cv::imdecode to BGR, then cv::resize (bilinear) to w x h. Returns a
// checksum of the result so the work cannot be optimised away.
unsigned peer_decode_resize(const unsigned char *jpeg, size_t size, int w, int h)
{
    cv::Mat buf(1, (int)size, CV_8UC1, const_cast<unsigned char *>(jpeg));
    cv::Mat img = cv::imdecode(buf, cv::IMREAD_COLOR);
    cv::Mat out;
    cv::resize(img, out, cv::Size(w, h), 0, 0, cv::INTER_LINEAR);
    return out.data[0] + out.data[out.total() * 3 - 1];
}

// Crop-and-paste of n regions of an NV12 picture, each into its own NV12
// canvas: per region one cv::resize of the luma rectangle and one of the
// interleaved chroma rectangle (CV_8UC2), the work DVPP's batch call does.
// roi[k] = {left, top, width, height} in the source, box[k] the same in the
// canvas; sizes are even.
unsigned peer_crop_paste(const unsigned char *nv12, int ws, int hs, int n, const int (*roi)[4],
                         unsigned char *const *canvas, int cws, int chs, const int (*box)[4])
{
    cv::Mat y(hs, ws, CV_8UC1, const_cast<unsigned char *>(nv12), ws);
    cv::Mat uv(hs / 2, ws / 2, CV_8UC2, const_cast<unsigned char *>(nv12) + (size_t)ws * hs, ws);
    unsigned sum = 0;
    for (int k = 0; k < n; k++) {
        cv::Mat cy(chs, cws, CV_8UC1, canvas[k], cws);
        cv::Mat cuv(chs / 2, cws / 2, CV_8UC2, canvas[k] + (size_t)cws * chs, cws);
        const int *r = roi[k], *b = box[k];
        cv::Mat dy = cy(cv::Rect(b[0], b[1], b[2], b[3]));
        cv::Mat duv = cuv(cv::Rect(b[0] / 2, b[1] / 2, b[2] / 2, b[3] / 2));
        cv::resize(y(cv::Rect(r[0], r[1], r[2], r[3])), dy, dy.size(), 0, 0, cv::INTER_LINEAR);
        cv::resize(uv(cv::Rect(r[0] / 2, r[1] / 2, r[2] / 2, r[3] / 2)), duv, duv.size(), 0, 0, cv::INTER_LINEAR);
        sum += canvas[k][(size_t)b[1] * cws + b[0]];
    }
    return sum;
}

}  // extern "C"
